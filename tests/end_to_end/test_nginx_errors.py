"""Errors nginx answers itself (deploy/nginx.conf.template): the API's JSON under /api/, else a page."""

from __future__ import annotations

import pytest
import requests

from tests.support.nginx import Nginx
from tests.support.processes import free_port

# Over the template's client_max_body_size (1m), so nginx refuses it before any worker sees it.
TOO_LARGE_BODY = b"x" * (1024 * 1024 + 1)
TOO_LONG_PATH = "a" * 10_000
# Over nginx's large_client_header_buffers (8k): nginx answers 400.
TOO_LONG_HEADER = {"X-Padding": "a" * 20_000}


@pytest.fixture(scope="module")
def front_door_without_workers():
    """nginx from the template in front of two ports nothing listens on."""
    with Nginx([f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"]) as nginx:
        yield nginx


def send(nginx: Nginx, method: str, path: str, **kwargs) -> requests.Response:
    """One request through nginx, the path sent exactly as written (no quoting by the client)."""
    session = requests.Session()
    request = session.prepare_request(requests.Request(method, f"{nginx.url}/", **kwargs))
    request.url = f"{nginx.url}{path}"
    return session.send(request, timeout=10, allow_redirects=False)


CASES = [
    # (method, path, extra arguments, status, the API's error code)
    pytest.param("POST", "/api/views/welcome", {"data": TOO_LARGE_BODY}, 413, "too_large", id="body"),
    pytest.param("GET", f"/api/counters/{TOO_LONG_PATH}", {}, 414, "too_large", id="address"),
    pytest.param("GET", "/api/counters/wel%00come", {}, 400, "bad_request", id="nul"),
    pytest.param("GET", "/api/counters", {"headers": TOO_LONG_HEADER}, 400, "bad_request", id="header"),
    pytest.param("TRACE", "/api/counters", {}, 405, "method_not_allowed", id="trace"),
    pytest.param("GET", "/api/counters/welcome", {}, 502, "outcome_unknown", id="no-worker-get"),
    pytest.param("POST", "/api/views/welcome", {"data": b"{}"}, 502, "outcome_unknown", id="no-worker-post"),
]


@pytest.mark.processes
@pytest.mark.parametrize(("method", "path", "kwargs", "status", "code"), CASES)
def test_nginx_answers_its_own_refusals_under_the_api_as_the_projects_json(
    front_door_without_workers, method, path, kwargs, status, code
):
    response = send(front_door_without_workers, method, path, **kwargs)
    assert response.status_code == status
    assert response.headers["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error", "detail"}
    assert body["error"] == code and body["detail"].endswith(".")


@pytest.mark.processes
@pytest.mark.parametrize(
    ("method", "path", "status"),
    [("TRACE", "/", 405), ("GET", "/pages/wel%00come/", 400), ("GET", "/pages/welcome/", 502)],
)
def test_pages_outside_the_api_get_a_readable_page_with_the_same_status(
    front_door_without_workers, method, path, status
):
    response = send(front_door_without_workers, method, path)
    assert response.status_code == status
    assert response.headers["Content-Type"].startswith("text/html")
    assert "<title>" in response.text and "nginx" not in response.text
