"""Viewing now over two daphne workers sharing the real Redis: sums everywhere; a killed worker drops out."""

from __future__ import annotations

import contextlib
import time

import pytest
import requests

from counters import conf
from tests.support.live import receive_until, site_socket, viewing
from tests.support.processes import SiteProcess
from tests.support.site import redis_site_env, two_workers
from tests.support.timing import scaled

SPREAD_WITHIN = scaled(2.0)  # seconds for a change to reach every page and both workers' API


def killed_within() -> float:
    """README and docs/operations.md: a killed worker drops out "within about 20 s": its counts expire
    a TTL (15 s) after its last heartbeat and the others read the sums every third of a TTL, plus a
    second (stretched by the machine's factor) for the read and the push."""
    return conf.presence_ttl() * (1 + 1 / 3) + scaled(1.0)


def api_viewing(worker: SiteProcess, page: str) -> int:
    response = requests.get(f"{worker.url}/api/counters/{page}", timeout=5)
    response.raise_for_status()
    return response.json()["viewing_now"]


def everywhere(observers, workers, expected: dict[str, int], *, within: float, frames) -> float:
    """Wait until every observer socket and every worker's API show `expected`; the seconds it took."""
    started = time.monotonic()
    for socket in observers:
        receive_until(
            socket, lambda now: now == expected, timeout=within, reading=viewing, frames=frames[socket]
        )
    deadline = started + within
    for worker in workers:
        while {page: api_viewing(worker, page) for page in expected} != expected:
            assert time.monotonic() < deadline, f"{worker.url} API never showed {expected}"
            time.sleep(0.05)
    return time.monotonic() - started


@pytest.mark.processes
def test_viewing_now_is_summed_over_workers_and_a_killed_worker_drops_out(
    demo_store, dynamodb_local, tmp_path, redis_prefix
):
    env = redis_site_env(demo_store, dynamodb_local, tmp_path, redis_prefix)
    with two_workers(env, tmp_path) as (worker_a, worker_b), contextlib.ExitStack() as sockets:
        # Three browsers on `welcome` and one on `docs`, spread over both workers.
        welcome_a1 = sockets.enter_context(site_socket(worker_a.url, page="welcome"))
        welcome_a2 = sockets.enter_context(site_socket(worker_a.url, page="welcome"))
        welcome_b = sockets.enter_context(site_socket(worker_b.url, page="welcome"))
        docs_b = sockets.enter_context(site_socket(worker_b.url, page="docs"))
        observers = [welcome_a1, welcome_b, docs_b]
        frames = {socket: [] for socket in [welcome_a2, *observers]}

        took = everywhere(
            observers, [worker_a, worker_b], {"welcome": 3, "docs": 1}, within=SPREAD_WITHIN, frames=frames
        )
        print(f"3 + 1 viewers seen on every page and both APIs {took:.2f}s after the last socket opened")

        welcome_a2.close()
        took = everywhere(
            observers, [worker_a, worker_b], {"welcome": 2, "docs": 1}, within=SPREAD_WITHIN, frames=frames
        )
        print(f"a closed page seen everywhere after {took:.2f}s")

        worker_b.process.kill()  # SIGKILL: no disconnects, no clean exit, only the expiry tells
        worker_b.process.wait(10)
        killed_at = time.monotonic()
        receive_until(
            welcome_a1,
            lambda now: now == {"welcome": 1},
            timeout=killed_within(),
            reading=viewing,
            frames=frames[welcome_a1],
        )
        dropped = time.monotonic() - killed_at
        print(f"SIGKILLed worker's 2 sockets dropped out after {dropped:.1f}s (TTL {conf.presence_ttl():g}s)")
        assert api_viewing(worker_a, "welcome") == 1 and api_viewing(worker_a, "docs") == 0
    assert "Traceback" not in worker_a.log_text()
