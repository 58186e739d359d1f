"""The same app under daphne, uvicorn and granian: beacons through each, in one run, vs the store limit."""

from __future__ import annotations

import contextlib

from bench.budget import Budget
from bench.environment import BENCH_PAGE, BenchEnvironment, site_under
from bench.scenarios.store import RawCounter
from bench.scenarios.views import beacon_request, site_row, writes_per_view

SERVERS = ("daphne", "uvicorn", "granian")
CONCURRENCIES = (8, 32)
TITLE = "Beacons through one process of each ASGI server (the same app), interleaved, vs the store limit"


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Beacons/s, p50/p99 and site CPU per beacon under each server at C=8 and 32; every one counted."""
    del results
    request = beacon_request(env.csrf_token())
    raw = RawCounter(env, "bench-raw-paired")
    before = env.store.get(BENCH_PAGE).value
    rows, answered = [], 0
    with contextlib.ExitStack() as stack:
        sites = {server: stack.enter_context(site_under(env, server)) for server in SERVERS}
        for concurrency in CONCURRENCIES:
            # Servers take turns at each C, so drifting background load meets them all alike.
            for server, workers in sites.items():
                start = env.store.get(BENCH_PAGE)
                row, ok = site_row(
                    env,
                    raw,
                    budget,
                    f"beacon, {server}",
                    lambda i: request,
                    concurrency=concurrency,
                    workers=workers,
                )
                row["store_writes_per_view"] = writes_per_view(start, env.store.get(BENCH_PAGE))
                answered += ok
                rows.append(row)
    counted = env.store.get(BENCH_PAGE).value - before
    checks = {"answered_2xx": answered, "counted": counted, "exact": counted == answered}
    return {"title": TITLE, "available": True, "rows": rows, "checks": checks}
