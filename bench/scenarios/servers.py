"""The same site under daphne, uvicorn and granian in one run: beacons at each C, vs the store limit."""

from __future__ import annotations

import importlib.util

from bench.budget import CONCURRENCIES, Budget
from bench.environment import BENCH_PAGE, BenchEnvironment, site_servers
from bench.load import run_load
from bench.scenarios.store import RawCounter
from bench.scenarios.views import beacon_request, site_row, writes_per_view

# daphne is the default (runserver, the deployment card); the others serve the same ASGI application.
SERVERS = ("daphne", "uvicorn", "granian")
TITLE = "Beacons through one process of each ASGI server, the same app and store, vs the store limit"


def installed(server: str) -> bool:
    """Whether this Python can run `server`."""
    return importlib.util.find_spec(server) is not None


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Beacons/s, p50/p99 and site CPU ms per beacon for each server at C = 1, 8, 32; counts must match."""
    del results
    servers = [server for server in SERVERS if installed(server)]
    request = beacon_request(env.csrf_token())
    raw = RawCounter(env, "bench-raw-paired")
    before = env.store.get(BENCH_PAGE).value
    rows, answered = [], 0
    with site_servers(env, servers) as sites:
        for workers in sites.values():
            answered += run_load(workers.urls, lambda i: request, concurrency=1, total=budget.warmup).ok
        for concurrency in CONCURRENCIES:
            # Interleaved at each C, so every server meets the same background load.
            for server, workers in sites.items():
                label = f"POST /api/views/<slug>, {server}"
                start = env.store.get(BENCH_PAGE)
                row, ok = site_row(
                    env, raw, budget, label, lambda i: request, concurrency=concurrency, workers=workers
                )
                row["store_writes_per_view"] = writes_per_view(start, env.store.get(BENCH_PAGE))
                answered += ok
                rows.append(row)
    counted = env.store.get(BENCH_PAGE).value - before
    return {
        "title": TITLE,
        "servers": servers,
        "missing": [server for server in SERVERS if server not in servers],
        "rows": rows,
        "checks": {"answered_2xx": answered, "counted": counted, "exact": counted == answered},
    }
