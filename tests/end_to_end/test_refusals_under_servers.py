"""Refusals as a careful client meets them under daphne and uvicorn: every 400 under /api/ in the JSON
shape (a multipart body without a boundary too), a wrong method a 405 naming the right ones before any
CSRF check, and a log a client cannot flood: a bad Host, a refused socket, a dropped connection and a
404, each many times, leave at most one line of each kind and no traceback."""

from __future__ import annotations

import socket
import struct
import time

import pytest
import requests
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.support.processes import SiteProcess
from tests.support.site import site_env_for

SERVERS = ["daphne", "uvicorn"]
TIMES = 25
HANDSHAKE = (
    "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\nUpgrade: websocket\r\n"
    "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
# The lines each kind of refusal may leave, whoever prints them (the site's handler or uvicorn's own).
KINDS = {
    "bad host": "django.security.DisallowedHost",
    "not found": "Not Found: /api/counters/",
    "refused socket": "Refused a live socket",
    "uvicorn refused": "connection rejected",
    "uvicorn opened": "connection open",
}


def reset(sock: socket.socket) -> None:
    """Close with a TCP reset, as a phone that loses its network or a killed client does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def drop_a_live_socket(site: SiteProcess) -> None:
    """Open the dashboard socket, read its first answer, and drop the connection."""
    sock = socket.create_connection(("127.0.0.1", site.port), timeout=30)
    sock.sendall(HANDSHAKE.format(path="/ws/counters/").encode())
    assert sock.recv(4096).startswith(b"HTTP/1.1 101")
    reset(sock)


def drop_a_request(site: SiteProcess) -> None:
    """Send half a POST and drop the connection."""
    sock = socket.create_connection(("127.0.0.1", site.port), timeout=30)
    sock.sendall(b"POST /api/views/docs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
    reset(sock)


@pytest.mark.processes
@pytest.mark.parametrize("server", SERVERS)
def test_refusals_answer_in_one_shape_and_log_once(server, demo_store, dynamodb_local, tmp_path):
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    site = SiteProcess(env=env, log_path=tmp_path / f"{server}.log", server=server, quiet=True)
    site.migrate()
    with site, requests.Session() as browser:
        browser.get(f"{site.url}/pages/welcome/", timeout=30)
        token = browser.cookies["csrftoken"]
        before = demo_store.get("docs").value
        offset, began = len(site.log_text()), time.monotonic()

        no_boundary = browser.post(
            f"{site.url}/api/views/docs",
            data=b"--x\r\n",
            headers={"Content-Type": "multipart/form-data", "X-CSRFToken": token},
            timeout=30,
        )
        assert no_boundary.status_code == 400 and set(no_boundary.json()) == {"error", "detail"}

        for path in ("/healthz", "/readyz", "/metrics", "/api/counters"):
            for method in ("POST", "DELETE", "PUT"):
                wrong = requests.request(method, f"{site.url}{path}", timeout=30)
                assert wrong.status_code == 405, (method, path)
                assert wrong.headers["Allow"] in ("GET", "GET, HEAD"), (method, path)
                assert wrong.json()["error"] == "method_not_allowed", (method, path)

        for n in range(TIMES):
            drop_a_live_socket(site)
            drop_a_request(site)
            with pytest.raises(InvalidStatus) as refused:
                connect(f"ws://127.0.0.1:{site.port}/ws/counters/?page=%00", open_timeout=30).close()
            assert refused.value.response.status_code == 403
            missing = browser.get(f"{site.url}/api/counters/no-such-{n}", timeout=30)
            assert missing.status_code == 404 and set(missing.json()) == {"error", "detail"}
            bad_host = requests.get(
                f"{site.url}/api/counters", headers={"Host": f"evil-{n}.example"}, timeout=30
            )
            assert bad_host.status_code == 400 and set(bad_host.json()) == {"error", "detail"}

        minutes = int((time.monotonic() - began) // 60) + 1
        log = site.log_text()[offset:]
    assert demo_store.get("docs").value == before
    assert "Traceback" not in log, log[-3000:]
    for kind, text in KINDS.items():
        assert log.count(text) <= minutes, (kind, log[-3000:])
    # Five refusals of each kind, many times over, and the log grows by a few lines, not by the count.
    assert len(log.splitlines()) <= 12 * minutes, log[-3000:]
