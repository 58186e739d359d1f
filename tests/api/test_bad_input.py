"""Bad input found by fuzzing, pinned down; and the same abuse over the wire to a real daphne site."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
import requests
from django.test import Client

from tests.support.processes import SiteProcess
from tests.support.reliability import csrf_session
from tests.support.site import site_env_for


def totals(store) -> dict[str, tuple[int, int]]:
    """Every counter's value and version."""
    return {state.name: (state.value, state.version) for state in store.list_counters()}


def test_head_of_an_unknown_page_is_a_404(demo_store, client):
    assert client.head("/pages/no-such-page/").status_code == 404
    assert client.head("/pages/language/").status_code == 404, "a poll is not a page"


def test_multipart_without_a_boundary_is_a_400_json(demo_store):
    client = Client(enforce_csrf_checks=True)
    before = totals(demo_store)

    response = client.post("/api/views/docs", data=b"--x\r\n", content_type="multipart/form-data")

    assert response.status_code == 400
    assert response.json()["error"] == "bad_request"
    assert totals(demo_store) == before


def test_a_beacon_with_a_form_body_counts(demo_store, client):
    # The test client's default body is multipart: parsed once, then still readable by the API.
    before = demo_store.get("docs").value

    response = client.post("/api/views/docs", data={"a": "b"})

    assert response.status_code == 200
    assert response.json()["value"] == before + 1


@pytest.fixture
def site(demo_store, dynamodb_local, tmp_path) -> Iterator[SiteProcess]:
    """The real site under daphne on the demo table."""
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as running:
        yield running


def raw_request(site: SiteProcess, request: bytes) -> bytes:
    """Send bytes as they are and return the first bytes of the answer."""
    with socket.create_connection(("127.0.0.1", site.port), timeout=30) as sock:
        sock.sendall(request)
        return sock.recv(4096)


@pytest.mark.processes
def test_abuse_over_the_wire_gets_4xx_and_writes_nothing(site, demo_store):
    session = csrf_session(site.url)
    before = totals(demo_store)
    url = site.url
    answers = {
        "oversized": session.post(f"{url}/api/views/docs", data=b"x" * (3 * 1024 * 1024), timeout=30),
        "oversized form": session.post(
            f"{url}/api/views/docs",
            data=b"a=" + b"x" * (3 * 1024 * 1024),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            timeout=30,
        ),
        "multipart, no boundary": session.post(
            f"{url}/api/views/docs", data=b"--x", headers={"Content-Type": "multipart/form-data"}, timeout=30
        ),
        "no token": requests.post(f"{url}/api/views/docs", timeout=30),
        "unicode name": session.post(f"{url}/api/views/d%C3%B3cs", timeout=30),
        "encoded slash": session.post(f"{url}/api/views/..%2Fdocs", timeout=30),
        "encoded dots": session.get(f"{url}/api/counters/%2e%2e", timeout=30),
        "nul": session.get(f"{url}/api/counters/docs%00", timeout=30),
        "overlong": session.get(f"{url}/api/counters/{'a' * 5000}", timeout=30),
        "bad window": session.get(f"{url}/api/counters/docs/history?window=%00", timeout=30),
        "put page": session.put(f"{url}/pages/docs/", timeout=30),
    }
    statuses = {name: response.status_code for name, response in answers.items()}
    assert all(400 <= status < 500 for status in statuses.values()), statuses
    assert statuses["oversized"] == statuses["oversized form"] == 413
    assert statuses["no token"] == 403
    for name, response in answers.items():
        # Pages answer 405 without a body; daphne (Twisted) itself refuses broken multipart with a bare
        # 400 before Django sees it (other ASGI servers pass it on: see the test above).
        if name not in {"put page", "multipart, no boundary"}:
            assert set(response.json()) == {"error", "detail"}, name
        assert "Traceback" not in response.text, name
    raw = raw_request(
        site,
        b"POST /api/views/docs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain; charset=\xff\x00\r\n"
        b"Content-Length: 1\r\n\r\nx",
    )
    assert not raw.startswith(b"HTTP/1.1 5"), raw[:200]
    assert totals(demo_store) == before
    assert "Internal Server Error" not in site.log_text()
