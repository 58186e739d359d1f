"""Visitors, bot views and open dashboards over two daphne workers sharing the real Redis: a page on
one worker hears what the other counted, and dashboards open are summed over both."""

from __future__ import annotations

import contextlib

import pytest
import requests

from counters.domain.names import SITE_VISITORS
from tests.support.live import receive_until, site_socket, viewing
from tests.support.site import redis_site_env, two_workers

BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
WITHIN = 10.0


def tallied(frames: list[dict]) -> dict[str, int]:
    """The largest visitors (`v:<name>`) and bot views (`b:<name>`) the tallies frames carried."""
    known: dict[str, int] = {}
    for frame in frames:
        if frame["type"] != "tallies":
            continue
        for prefix, counts in (("v:", frame["visitors"]), ("b:", frame["bots"])):
            for name, count in counts.items():
                known[prefix + name] = max(known.get(prefix + name, 0), count)
    return known


@pytest.mark.processes
def test_a_dashboard_on_one_worker_hears_what_the_other_counted(
    demo_store, dynamodb_local, tmp_path, redis_prefix
):
    env = redis_site_env(demo_store, dynamodb_local, tmp_path, redis_prefix)
    env |= {"COUNTERS_PROXY_COUNT": "1", "COUNTERS_COUNT_BOTS_APART": "true"}
    with two_workers(env, tmp_path) as (worker_a, worker_b), contextlib.ExitStack() as sockets:
        board = sockets.enter_context(site_socket(worker_a.url, page="dashboard"))
        sockets.enter_context(site_socket(worker_b.url, page="dashboard"))
        frames: list[dict] = []
        receive_until(
            board, lambda now: now.get("dashboard") == 2, timeout=WITHIN, reading=viewing, frames=frames
        )

        for i in range(4):
            for page in ("docs", "welcome"):
                headers = {"X-Forwarded-For": f"203.0.113.{i + 1}", "User-Agent": BROWSER}
                requests.get(f"{worker_b.url}/pages/{page}/", headers=headers, timeout=30).raise_for_status()
        headers = {"X-Forwarded-For": "198.51.100.1", "User-Agent": GOOGLEBOT}
        requests.get(f"{worker_b.url}/pages/docs/", headers=headers, timeout=30).raise_for_status()

        expected = {"v:docs": 4, "v:welcome": 4, f"v:{SITE_VISITORS}": 4, "b:docs": 1}
        receive_until(board, lambda now: now == expected, timeout=WITHIN, reading=tallied, frames=frames)
        overview = requests.get(f"{worker_a.url}/api/overview", timeout=30).json()
        assert overview["visitors_today"] == 4 and overview["bot_views"] == 1
    assert "Traceback" not in worker_a.log_text() + worker_b.log_text()
