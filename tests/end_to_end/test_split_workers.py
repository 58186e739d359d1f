"""Dashboard sockets on a worker of their own behind nginx, counting on another, sharing Redis."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.support.live import receive_until, site_socket
from tests.support.nginx import Nginx
from tests.support.processes import SiteProcess
from tests.support.site import redis_site_env

BEACONS = 40
# A counted request in either server's access log: daphne's `"POST /path" 200`, uvicorn's
# `"POST /path HTTP/1.1" 200`.
COUNTED = r'"(?:POST /api/views/welcome|GET /pages/welcome/)(?: HTTP/1\.1)?" 200'


@pytest.fixture
def split(demo_store, dynamodb_local, tmp_path, redis_prefix):
    """nginx sending /ws/ to a daphne socket worker and everything else to a uvicorn counting worker."""
    env = redis_site_env(demo_store, dynamodb_local, tmp_path, redis_prefix)
    env.update(COUNTERS_PROXY_COUNT="1")
    counting = SiteProcess(env=env, log_path=tmp_path / "counting.log", server="uvicorn")
    sockets = SiteProcess(env=env, log_path=tmp_path / "sockets.log")
    with counting, sockets:
        address = "127.0.0.1:{}".format
        with Nginx([address(counting.port)], socket_upstreams=[address(sockets.port)]) as nginx:
            yield nginx, counting, sockets
    assert "Traceback" not in counting.log_text() + sockets.log_text()


@pytest.mark.processes
def test_a_socket_through_nginx_lands_on_a_socket_worker_and_sees_the_counting_workers_totals(
    split, demo_store
):
    nginx, counting, sockets = split
    with site_socket(nginx.url) as first, site_socket(nginx.url) as second:
        for socket in (first, second):
            assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
        assert len(re.findall(r"WSCONNECT /ws/counters/", sockets.log_text())) == 2
        assert "/ws/" not in counting.log_text()

        token = requests.get(f"{nginx.url}/pages/welcome/", timeout=10).cookies["csrftoken"]
        beacon = {"Cookie": f"csrftoken={token}", "X-CSRFToken": token, "Origin": nginx.url}

        def beacon_post(_: int) -> int:
            return requests.post(f"{nginx.url}/api/views/welcome", headers=beacon, timeout=10).status_code

        with ThreadPoolExecutor(4) as pool:
            assert list(pool.map(beacon_post, range(BEACONS))) == [200] * BEACONS

        expected = 1 + BEACONS  # the page view that set the CSRF cookie, then the beacons
        assert demo_store.get("welcome").value == expected
        # Every count was made on the counting worker; the socket worker counted nothing.
        assert len(re.findall(COUNTED, counting.log_text())) == expected
        assert not re.findall(COUNTED, sockets.log_text())
        # The socket worker learnt the totals through Redis and pushed them: both sockets end exactly there.
        for socket in (first, second):
            frames = receive_until(socket, lambda known: known.get("welcome", (0, 0))[0] >= expected)
            assert {c["name"]: c["value"] for c in frames[-1]["counters"]}["welcome"] == expected
