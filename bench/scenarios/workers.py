"""Counted views through two daphne workers sharing Redis behind nginx: the scale-out path as deployed."""

from __future__ import annotations

import redis

from bench.budget import CONCURRENCIES, Budget
from bench.environment import BENCH_PAGE, BenchEnvironment, redis_url, site_workers
from bench.load import run_load
from bench.scenarios.store import RawCounter
from bench.scenarios.views import beacon_request, site_row
from tests.support.nginx import nginx_binary

WORKERS = 2
THROUGH_NGINX = f"POST /api/views/<slug>, {WORKERS} workers behind nginx"
DIRECT = f"POST /api/views/<slug>, {WORKERS} workers"
TITLE = (
    f"Counted views through nginx balancing {WORKERS} daphne workers sharing Redis (as deployed), and"
    " straight to the workers, clients spread over them in turn"
)


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Beacons/s, p50/p99 at C = 8, 32 through nginx and direct, vs the store limit; counts must match."""
    del results
    try:
        redis.Redis.from_url(redis_url(), socket_connect_timeout=2).ping()
        nginx_binary()
    except (redis.RedisError, OSError) as error:
        return {
            "title": TITLE,
            "available": False,
            "detail": f"not available (no Redis at {redis_url()}: {error})",
        }
    except RuntimeError as error:
        return {"title": TITLE, "available": False, "detail": f"not available ({error})"}
    request = beacon_request(env.csrf_token())
    raw = RawCounter(env, "bench-raw-paired")
    before = env.store.get(BENCH_PAGE).value
    rows, answered = [], 0
    with site_workers(env, WORKERS) as (direct, behind_nginx):
        warm = run_load(behind_nginx.urls, lambda i: request, concurrency=WORKERS, total=budget.warmup)
        answered += warm.ok
        for concurrency in (c for c in CONCURRENCIES if c >= WORKERS):
            # Interleaved at each C, so both ways meet the same background load.
            for label, workers in ((THROUGH_NGINX, behind_nginx), (DIRECT, direct)):
                row, ok = site_row(
                    env, raw, budget, label, lambda i: request, concurrency=concurrency, workers=workers
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
