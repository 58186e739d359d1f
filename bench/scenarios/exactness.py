"""Exactness: totals after concurrent beacons equal the requests made; a naive get-then-put loses some."""

from __future__ import annotations

import uuid

from bench.budget import Budget
from bench.environment import BenchEnvironment
from bench.load import run_calls, run_load
from bench.scenarios.store import RawCounter
from bench.scenarios.views import beacon_request

CONCURRENCY = 8


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Count N beacons on a fresh counter at C=8, and N naive read-modify-writes at C=8, and compare."""
    from counters.domain.values import CounterDefinition

    name = f"exact-{uuid.uuid4().hex[:8]}"
    env.store.define_counter(CounterDefinition(name=name, kind="views", title="Exactness"))
    total = budget.requests_at(CONCURRENCY)
    token = env.csrf_token()
    request = beacon_request(token, name)
    site = run_load(
        env.base_url, lambda i: request, concurrency=CONCURRENCY, total=total, time_limit=budget.time_limit
    )
    counted = env.store.get(name).value
    naive = RawCounter(env, f"naive-{uuid.uuid4().hex[:8]}")
    baseline = run_calls(
        lambda i: naive.naive_add(), concurrency=CONCURRENCY, total=total, time_limit=budget.time_limit
    )
    naive_total = naive.value()
    rows = [
        {
            "path": "POST /api/views/<slug> (ADD through the site)",
            "concurrency": CONCURRENCY,
            "requests": len(site.latencies) + site.errors,
            "acknowledged": site.ok,
            "final_total": counted,
            "lost": max(site.ok - counted, 0),
            "doubled": max(counted - site.ok, 0),
        },
        {
            "path": "naive GetItem then PutItem(value + 1) (raw boto3)",
            "concurrency": CONCURRENCY,
            "requests": len(baseline.latencies) + baseline.errors,
            "acknowledged": baseline.ok,
            "final_total": naive_total,
            "lost": max(baseline.ok - naive_total, 0),
            "doubled": max(naive_total - baseline.ok, 0),
        },
    ]
    return {
        "title": f"Exactness at C={CONCURRENCY}: final totals vs requests acknowledged",
        "rows": rows,
        "checks": {
            "exact": counted == site.ok == total and site.errors == 0,
            "naive_lost": rows[1]["lost"],
        },
    }
