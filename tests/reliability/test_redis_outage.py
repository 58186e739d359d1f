"""Two daphne workers sharing a Redis of the test's own: Redis dies and comes back under them."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack, contextmanager

import pytest
import requests
from websockets.exceptions import ConnectionClosed

from tests.support.live import receive_until, site_socket
from tests.support.processes import SiteProcess
from tests.support.redis_server import RedisServer
from tests.support.site import site_env_for
from tests.support.timing import scaled

VIEWS_BEFORE = 5
VIEWS_DURING = 10
VIEWS_AFTER = 5
WAIT = 20.0
CLOSE_RELAY_LOST = 4012  # the documented close code, written out: the test holds the code to it


def view(browser: requests.Session, site: SiteProcess, slug: str) -> None:
    """One page view and one beacon through a worker; both must be answered 200."""
    assert browser.get(f"{site.url}/pages/{slug}/", timeout=10).status_code == 200
    headers = {"X-CSRFToken": browser.cookies["csrftoken"]}
    assert browser.post(f"{site.url}/api/views/{slug}", headers=headers, timeout=10).status_code == 200


def wait_closed(socket) -> int | None:
    """Read frames until the server closes the socket; the close code it sent. Fail after WAIT seconds."""
    deadline = time.monotonic() + scaled(WAIT)
    while time.monotonic() < deadline:
        try:
            socket.recv(timeout=deadline - time.monotonic())
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None
        except TimeoutError:
            break
    raise AssertionError(f"the websocket stayed open {scaled(WAIT)}s after Redis died")


@contextmanager
def reconnected_with_snapshot(url: str):
    """Reconnect as the browser does, until a socket opens with a snapshot; fail after WAIT seconds."""
    deadline = time.monotonic() + scaled(WAIT)
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        with ExitStack() as stack:
            frame = None
            try:
                socket = stack.enter_context(site_socket(url))
                frame = json.loads(socket.recv(timeout=10))
            except (OSError, ConnectionClosed) as error:
                last_error = error
            if frame is not None and frame["type"] == "snapshot":
                yield socket, frame
                return
        time.sleep(0.5)
    raise AssertionError(f"no snapshot within {WAIT}s after Redis came back: {last_error!r}")


@pytest.mark.processes
def test_counting_survives_a_redis_outage_sockets_close_with_4012_and_live_updates_resume(
    demo_store, dynamodb_local, tmp_path
):
    with RedisServer(tmp_path / "redis.log") as redis_server:
        env = site_env_for(
            demo_store, dynamodb_local, tmp_path, REDIS_URL=redis_server.url, COUNTERS_REDIS_PREFIX="outage"
        )
        with (
            SiteProcess(env=env, log_path=tmp_path / "a.log") as worker_a,
            SiteProcess(env=env, log_path=tmp_path / "b.log") as worker_b,
        ):
            browser = requests.Session()
            with site_socket(worker_b.url) as socket:
                assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
                for _ in range(VIEWS_BEFORE):
                    view(browser, worker_a, "welcome")
                receive_until(socket, lambda known: known.get("welcome", (0, 0))[0] == 2 * VIEWS_BEFORE)

                redis_server.kill()
                for _ in range(VIEWS_DURING):
                    view(browser, worker_a, "welcome")
                assert demo_store.get("welcome").value == 2 * (VIEWS_BEFORE + VIEWS_DURING)
                # docs/operations.md: closed with 4012, so browsers reconnect and resync.
                assert wait_closed(socket) == CLOSE_RELAY_LOST

            redis_server.start()
            with reconnected_with_snapshot(worker_b.url) as (socket, snapshot):
                totals = {c["name"]: c["value"] for c in snapshot["counters"]}
                assert totals["welcome"] == 2 * (VIEWS_BEFORE + VIEWS_DURING)
                for _ in range(VIEWS_AFTER):
                    view(browser, worker_a, "welcome")
                total = 2 * (VIEWS_BEFORE + VIEWS_DURING + VIEWS_AFTER)
                frames = receive_until(socket, lambda known: known.get("welcome", (0, 0))[0] == total)
                assert frames[-1]["type"] == "update"
            assert demo_store.get("welcome").value == total
            logs = worker_a.log_text() + worker_b.log_text()
            # The lost layer is logged (ERROR, by design); no request or socket may crash.
            assert "Internal Server Error" not in logs
            assert "Exception inside application" not in logs
