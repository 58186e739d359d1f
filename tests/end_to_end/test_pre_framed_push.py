"""Frames encoded once and written straight to daphne's sockets; the ordinary send under other servers."""

from __future__ import annotations

import json
from contextlib import ExitStack

import pytest
import requests
from websockets.sync.client import connect

from bench.asgi import HAND_OUT_PATH
from tests.support.live import WS_PATH, receive_until, site_socket
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for

# One frame of each length encoding: 7-bit, 16-bit (126 to 65535) and 64-bit (above 65535) lengths.
SIZES = (60, 300, 40_000, 200_000)
SOCKETS = 3


def hand_out(site: SiteProcess, *, size: int, path: str = "direct", frames: int = 1) -> dict:
    """Have the site hand `frames` frames of about `size` bytes to its sockets; what it reported."""
    url = f"{site.url}{HAND_OUT_PATH}?frames={frames}&size={size}&path={path}"
    answer = requests.post(url, timeout=30)
    answer.raise_for_status()
    return answer.json()


def bench_site(server: str, demo_store, dynamodb_local, tmp_path) -> SiteProcess:
    """The site with the benchmark's hand-out endpoint, served by `server`."""
    # These tests read frames in the order they were handed out: no heartbeat between them.
    env = site_env_for(demo_store, dynamodb_local, tmp_path, COUNTERS_HEARTBEAT_SECONDS="3600")
    site = SiteProcess(
        env=env, log_path=tmp_path / f"{server}.log", server=server, application="bench.asgi:application"
    )
    site.migrate()
    return site


@pytest.mark.processes
@pytest.mark.parametrize("server", ["daphne", "uvicorn"])
def test_every_length_of_frame_reaches_a_websocket_client_whole(server, demo_store, dynamodb_local, tmp_path):
    site = bench_site(server, demo_store, dynamodb_local, tmp_path)
    with site, ExitStack() as stack:
        sockets = [stack.enter_context(site_socket(site.url)) for _ in range(SOCKETS)]
        for socket in sockets:
            assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
            # The client offers permessage-deflate, as browsers do: daphne declines it (its frames are
            # the same bytes for every socket), uvicorn takes it up (its frames are compressed per socket).
            assert "permessage-deflate" in socket.request.headers["Sec-WebSocket-Extensions"]
            compressed = "permessage-deflate" in socket.response.headers.get("Sec-WebSocket-Extensions", "")
            assert compressed is (server == "uvicorn")
        for size in SIZES:
            reported = hand_out(site, size=size)
            # daphne's sockets all take the bytes encoded once; uvicorn's go through channels' send.
            assert reported == {
                **reported,
                "sockets": SOCKETS,
                "direct": SOCKETS if server == "daphne" else 0,
            }
            for socket in sockets:
                frame = json.loads(socket.recv(timeout=10))
                assert frame["type"] == "update" and len(json.dumps(frame, separators=(",", ":"))) == size
        # A real count still reaches every socket, after the large frames, on either path.
        token = requests.get(f"{site.url}/pages/welcome/", timeout=10).cookies["csrftoken"]
        headers = {"Cookie": f"csrftoken={token}", "X-CSRFToken": token}
        assert requests.post(f"{site.url}/api/views/welcome", headers=headers, timeout=10).ok
        for socket in sockets:
            receive_until(socket, lambda known: known.get("welcome", (0, 0))[0] == 2)
    assert "Traceback" not in site.log_text()


@pytest.mark.processes
def test_the_old_send_path_and_the_direct_path_deliver_the_same_frames(demo_store, dynamodb_local, tmp_path):
    site = bench_site("daphne", demo_store, dynamodb_local, tmp_path)
    with site, site_socket(site.url) as socket:
        assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
        assert hand_out(site, size=500, path="send")["direct"] == 0
        sent = socket.recv(timeout=10)
        assert hand_out(site, size=500, path="direct")["direct"] == 1
        assert socket.recv(timeout=10) == sent


@pytest.mark.processes
def test_a_client_that_reads_slowly_gets_every_frame_whole_and_in_order(demo_store, dynamodb_local, tmp_path):
    site = bench_site("daphne", demo_store, dynamodb_local, tmp_path)
    # The client holds 4 frames before it stops reading, so the kernel's buffers fill: later frames go
    # partly to the socket and the rest through Twisted's buffer, and must still come out in order.
    with (
        site,
        connect(site.url.replace("http://", "ws://") + WS_PATH, origin=site.url, max_queue=4) as socket,
    ):
        assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
        assert hand_out(site, size=200_000, frames=40)["direct"] == 40
        numbers = [json.loads(socket.recv(timeout=30))["frame"] for _ in range(40)]
    assert numbers == list(range(40))
    assert "Traceback" not in site.log_text()
