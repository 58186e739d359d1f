"""Bad input found by fuzzing, pinned down; and the same abuse over the wire to a real daphne site."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
import requests
from django.test import Client

from tests.support.processes import SiteProcess
from tests.support.reliability import csrf_client, csrf_session
from tests.support.site import site_env_for


def totals(store) -> dict[str, tuple[int, int]]:
    """Every counter's value and version."""
    return {state.name: (state.value, state.version) for state in store.list_counters()}


VOTE = "/api/polls/language/vote"
BEACON = "/api/views/docs"
JSON_TYPE = {"Content-Type": "application/json"}
MULTIPART_BODY = b'--xyz\r\nContent-Disposition: form-data; name="option"\r\n\r\npython\r\n--xyz--\r\n'
# (content type, body) -> (status, error code), for a vote and for a beacon. Each is refused before
# anything is counted; the 1,000 '[' fit under the vote's 1 KiB cap and once reached a RecursionError.
ODD_BODIES = {
    "deep arrays": ("application/json", b"[" * 1000, 400, "invalid"),
    "deep objects": ("application/json", b'{"a":' * 150 + b"1" + b"}" * 150, 400, "invalid"),
    "huge integer": ("application/json", b'{"option": "python", "n": 1' + b"0" * 400 + b"}", 400, "invalid"),
    "huge float": ("application/json", b'{"option": "python", "n": 1e999}', 400, "invalid"),
    "NaN": ("application/json", b'{"option": "python", "n": NaN}', 400, "invalid"),
    "invalid UTF-8": ("application/json", b'{"option": "pyth\xffon"}', 400, "invalid"),
    "byte order mark": ("application/json", b'\xef\xbb\xbf{"option": "python"}', 400, "invalid"),
    "duplicate keys": ("application/json", b'{"option": "python", "option": "go"}', 400, "invalid"),
    "escaped NUL key": ("application/json", b'{"option": "python", "a\\u0000": 1}', 400, "invalid"),
    "lone surrogate": ("application/json", b'{"option": "python", "a": "\\ud800"}', 400, "invalid"),
    "form, invalid UTF-8": ("application/x-www-form-urlencoded", b"option=python&x=%ff", 400, "invalid"),
    "form, NUL": ("application/x-www-form-urlencoded", b"option=python&x=a%00", 400, "invalid"),
    "form, duplicate": ("application/x-www-form-urlencoded", b"option=python&option=go", 400, "invalid"),
    # Refused by the site's MalformedBodyMiddleware first (see the test without it below).
    "multipart, no boundary": ("multipart/form-data", b"--x\r\n", 400, "bad_request"),
    "multipart, no boundary, empty": ("multipart/form-data", b"", 400, "bad_request"),
    "latin-1 charset": (
        "application/json; charset=latin-1",
        b'{"option": "python"}',
        415,
        "unsupported_media_type",
    ),
    "XML": ("application/xml", b"<option>python</option>", 415, "unsupported_media_type"),
}
# The beacon reads a multipart body to see it is whole.
BEACON_ONLY_REFUSALS = {
    "multipart, cut short": ("multipart/form-data; boundary=xyz", MULTIPART_BODY[:-9], 400, "invalid"),
}
# The vote reads JSON and forms only: these are well formed, but not what it reads.
VOTE_ONLY_REFUSALS = {
    "JSON array": ("application/json", b'["python"]', 400, "invalid"),
    "empty JSON": ("application/json", b"", 400, "invalid"),
    "text": ("text/plain", b'{"option": "python"}', 415, "unsupported_media_type"),
    "untyped": ("", b'{"option": "python"}', 415, "unsupported_media_type"),
    "multipart": ("multipart/form-data; boundary=xyz", MULTIPART_BODY, 415, "unsupported_media_type"),
}


@pytest.fixture
def browser(memory_demo_store) -> Client:
    """A CSRF-checked client holding a token and a voter cookie."""
    return csrf_client()


def send(client: Client, method: str, path: str, content_type: str, body: bytes):
    """Send `body` with this Content-Type header, even when the body is empty (the test client drops it)."""
    extra = {"CONTENT_TYPE": content_type} if content_type else {}
    return client.generic(method, path, data=body, content_type=content_type, **extra)


def assert_refused(response, status: int, code: str) -> None:
    """The contract's JSON error with this status and code."""
    assert (response.status_code, response.json()["error"]) == (status, code), response.content[:300]
    assert set(response.json()) == {"error", "detail"}


ODD_REQUESTS = [
    *((VOTE, name, odd) for name, odd in {**ODD_BODIES, **VOTE_ONLY_REFUSALS}.items()),
    *((BEACON, name, odd) for name, odd in {**ODD_BODIES, **BEACON_ONLY_REFUSALS}.items()),
]


@pytest.mark.parametrize(
    ("path", "odd"),
    [(path, odd) for path, _, odd in ODD_REQUESTS],
    ids=[f"{p} {n}" for p, n, _ in ODD_REQUESTS],
)
def test_an_odd_body_is_refused_and_changes_nothing(browser, memory_demo_store, path, odd):
    content_type, body, status, code = odd
    before = totals(memory_demo_store)

    response = send(browser, "POST", path, content_type, body)

    assert_refused(response, status, code)
    assert "counters_voter" not in response.cookies, "a refusal sets no voter cookie"
    assert totals(memory_demo_store) == before
    assert browser.get(VOTE).json()["choice"] is None


@pytest.mark.parametrize("body", [b"", b"--x\r\n", MULTIPART_BODY])
@pytest.mark.parametrize("content_type", ["multipart/form-data", "multipart/form-data; boundary="])
def test_the_app_itself_refuses_multipart_without_a_boundary(memory_demo_store, settings, content_type, body):
    # A project that drops the app in without the demo site's middleware.
    settings.MIDDLEWARE = [
        entry for entry in settings.MIDDLEWARE if not entry.endswith("MalformedBodyMiddleware")
    ]
    before = totals(memory_demo_store)

    beacon = send(Client(), "POST", BEACON, content_type, body)
    vote = send(Client(), "POST", VOTE, content_type, body)

    assert_refused(beacon, 400, "invalid")
    assert_refused(vote, 400, "invalid")
    assert totals(memory_demo_store) == before


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("", b""),
        ("", b"\x00\x01 anything"),
        ("text/plain;charset=UTF-8", "a visit ✓".encode()),
        ("application/json", b'{"page": "docs", "n": [1, 2.5, {"a": null}]}'),
        ("application/x-www-form-urlencoded", b"a=1&b=caf%C3%A9"),
        ("multipart/form-data; boundary=xyz", MULTIPART_BODY),
        ("application/octet-stream", b""),
    ],
)
def test_a_beacon_with_a_readable_body_counts(browser, memory_demo_store, content_type, body):
    before = memory_demo_store.get("docs").value

    response = send(browser, "POST", BEACON, content_type, body)

    assert response.status_code == 200, response.content[:300]
    assert memory_demo_store.get("docs").value == before + 1


@pytest.mark.parametrize(
    ("content_type", "body", "method"),
    [
        ("application/json; charset=utf-8", b'{"option": "python"}', "POST"),
        ("application/x-www-form-urlencoded", b"option=python&from=dashboard", "POST"),
        ("application/octet-stream", b"", "DELETE"),  # Django's test client (and some others) on DELETE
        ("application/json", b"", "DELETE"),
    ],
)
def test_well_formed_votes_still_count(browser, memory_demo_store, content_type, body, method):
    browser.post(VOTE, data={"option": "go"}, content_type="application/json")

    response = send(browser, method, VOTE, content_type, body)

    assert response.status_code == 200, response.content[:300]
    assert response.json()["choice"] == ("python" if method == "POST" else None)
    assert response.json()["counted"] is True


@pytest.mark.parametrize(
    "query",
    [
        "window=1h&window=90d",
        "window=%00",
        "window=%ff",
        "window=1%E2%82",
        "window=caf\u00e9",
        "window=1h&window=1h",
    ],
)
@pytest.mark.parametrize(
    "path", ["/api/counters/docs/history", "/api/counters/docs/history.csv", "/badge/docs.svg"]
)
def test_an_odd_query_is_a_400_json(browser, memory_demo_store, path, query):
    query = query.replace("window", "show") if path.startswith("/badge/") else query
    before = totals(memory_demo_store)

    response = browser.get(f"{path}?{query}")

    assert_refused(response, 400, "invalid")
    assert totals(memory_demo_store) == before


def test_a_badge_url_keeps_its_cache_buster(browser, memory_demo_store):
    response = browser.get("/badge/docs.svg?v=1&v=2&label=Docs%20%E2%9C%93")

    assert response.status_code == 200
    assert "Docs ✓" in response.content.decode()


@pytest.mark.parametrize(
    "refused",
    [
        {"data": b"[" * 1000, "content_type": "application/json"},
        {"data": b"option=python&option=go", "content_type": "application/x-www-form-urlencoded"},
        {"data": b"<option/>", "content_type": "application/xml"},
        {"data": b"", "content_type": "multipart/form-data"},
        {"data": b'{"option": "Not An Id"}', "content_type": "application/json"},
        {"data": b"{}", "content_type": "application/json"},
        {"data": b'{"option": "python"}', "content_type": "application/json", "HTTP_IDEMPOTENCY_KEY": "a b"},
        {
            "data": b'{"option": "python"}',
            "content_type": "application/json",
            "HTTP_IDEMPOTENCY_KEY": "k" * 300,
        },
    ],
    ids=["deep", "duplicate", "xml", "no boundary", "bad option", "no option", "odd key", "long key"],
)
def test_a_refused_vote_leaves_the_rate_allowance_intact(browser, memory_demo_store, settings, refused):
    settings.COUNTERS_VOTE_RATE = "2/m"
    refusals = [browser.post(VOTE, **refused).status_code for _ in range(5)]

    votes = [
        browser.post(VOTE, data={"option": option}, content_type="application/json")
        for option in ["go", "rust"]
    ]
    over = browser.post(VOTE, data={"option": "python"}, content_type="application/json")

    assert all(status in {400, 413, 415} for status in refusals), refusals
    assert [vote.status_code for vote in votes] == [200, 200]
    assert over.status_code == 429


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
        "deep vote": session.post(f"{url}{VOTE}", data=b"[" * 1000, headers=JSON_TYPE, timeout=30),
        "deep beacon": session.post(f"{url}{BEACON}", data=b"[" * 1000, headers=JSON_TYPE, timeout=30),
        "duplicate keys": session.post(
            f"{url}{VOTE}", data=b'{"option": "go", "option": "rust"}', headers=JSON_TYPE, timeout=30
        ),
        "xml vote": session.post(
            f"{url}{VOTE}", data=b"<option/>", headers={"Content-Type": "application/xml"}, timeout=30
        ),
        "twice the window": session.get(f"{url}/api/counters/docs/history?window=1h&window=90d", timeout=30),
    }
    statuses = {name: response.status_code for name, response in answers.items()}
    assert all(400 <= status < 500 for status in statuses.values()), statuses
    assert statuses["oversized"] == statuses["oversized form"] == 413
    assert statuses["no token"] == 403
    assert statuses["deep vote"] == statuses["deep beacon"] == statuses["duplicate keys"] == 400
    assert statuses["xml vote"] == 415
    for name, response in answers.items():
        # A page's 405 is the error page; everything under /api/ is JSON, a multipart body without a
        # boundary too (Twisted's own parse, which refused it with a bare 400, is off: daphne_forms.py).
        if name != "put page":
            assert set(response.json()) == {"error", "detail"}, name
        assert "Traceback" not in response.text, name
    raw = raw_request(
        site,
        b"POST /api/views/docs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain; charset=\xff\x00\r\n"
        b"Content-Length: 1\r\n\r\nx",
    )
    assert not raw.startswith(b"HTTP/1.1 5"), raw[:200]
    # A raw (not percent-encoded) byte that is not UTF-8: daphne refuses the request line itself.
    raw_query = raw_request(
        site, b"GET /api/counters/docs/history?window=\xff HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    )
    assert raw_query.startswith(b"HTTP/1.1 400"), raw_query[:200]
    assert totals(demo_store) == before
    assert "Internal Server Error" not in site.log_text()
