"""Counted views through two daphne workers sharing Redis: the scale-out path on one machine."""

from __future__ import annotations

import redis

from bench.budget import CONCURRENCIES, Budget
from bench.environment import BENCH_PAGE, BenchEnvironment, redis_url, site_workers
from bench.load import run_load
from bench.scenarios.store import RawCounter
from bench.scenarios.views import beacon_request, site_row

WORKERS = 2
LABEL = f"POST /api/views/<slug>, {WORKERS} workers"
TITLE = f"Counted views through {WORKERS} daphne workers sharing Redis, clients spread over them in turn"


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Beacons/s and p50/p99 at C = 8, 32 over the workers, vs the store limit; the count must match."""
    del results
    try:
        redis.Redis.from_url(redis_url(), socket_connect_timeout=2).ping()
    except (redis.RedisError, OSError) as error:
        detail = f"not available (no Redis at {redis_url()}: {error})"
        return {"title": TITLE, "available": False, "detail": detail}
    request = beacon_request(env.csrf_token())
    raw = RawCounter(env, "bench-raw-paired")
    before = env.store.get(BENCH_PAGE).value
    rows, answered = [], 0
    with site_workers(env, WORKERS) as workers:
        warm = run_load(workers.urls, lambda i: request, concurrency=WORKERS, total=budget.warmup)
        answered += warm.ok
        for concurrency in (c for c in CONCURRENCIES if c >= WORKERS):
            row, ok = site_row(
                env, raw, budget, LABEL, lambda i: request, concurrency=concurrency, workers=workers
            )
            answered += ok
            rows.append(row)
    counted = env.store.get(BENCH_PAGE).value - before
    return {
        "title": TITLE,
        "available": True,
        "rows": rows,
        "checks": {"answered_2xx": answered, "counted": counted, "exact": counted == answered},
    }
