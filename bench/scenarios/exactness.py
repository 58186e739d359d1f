"""Exactness: totals after concurrent beacons equal the requests made; a naive get-then-put loses some."""

from __future__ import annotations

import uuid

from bench.budget import Budget
from bench.environment import BenchEnvironment
from bench.load import LoadResult, run_calls, run_load
from bench.scenarios.store import RawCounter
from bench.scenarios.views import beacon_request

CONCURRENCIES = (8, 32)  # the site's; the naive baseline runs at the first


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Count N beacons on a fresh counter at each C, and N naive read-modify-writes at C=8, and compare."""
    rows = [site_row(env, budget, concurrency) for concurrency in CONCURRENCIES]
    concurrency = CONCURRENCIES[0]
    total = budget.requests_at(concurrency)
    naive = RawCounter(env, f"naive-{uuid.uuid4().hex[:8]}")
    baseline = run_calls(
        lambda i: naive.naive_add(), concurrency=concurrency, total=total, time_limit=budget.time_limit
    )
    rows.append(exactness_row("naive GetItem then PutItem(value + 1) (raw boto3)", baseline, naive.value()))
    return {
        "title": "Exactness at C=8 and C=32: final totals vs requests acknowledged",
        "rows": rows,
        "checks": {
            "exact": all(row["lost"] == row["doubled"] == row["errors"] == 0 for row in rows[:-1])
            and all(row["final_total"] == row["requests"] for row in rows[:-1]),
            "naive_lost": rows[-1]["lost"],
        },
    }


def site_row(env: BenchEnvironment, budget: Budget, concurrency: int) -> dict:
    """N beacons at C on a fresh counter through the site, against its final total."""
    from counters.domain.values import CounterDefinition

    name = f"exact-{uuid.uuid4().hex[:8]}"
    env.store.define_counter(CounterDefinition(name=name, kind="views", title="Exactness"))
    request = beacon_request(env.csrf_token(), name)
    site = run_load(
        env.base_url,
        lambda i: request,
        concurrency=concurrency,
        total=budget.requests_at(concurrency),
        time_limit=budget.time_limit,
    )
    return exactness_row("POST /api/views/<slug> (ADD through the site)", site, env.store.get(name).value)


def exactness_row(path: str, result: LoadResult, final_total: int) -> dict:
    """Acknowledged requests against the final total: what was lost, what was counted twice."""
    return {
        "path": path,
        "concurrency": result.concurrency,
        "requests": len(result.latencies) + result.errors,
        "acknowledged": result.ok,
        "final_total": final_total,
        "lost": max(result.ok - final_total, 0),
        "doubled": max(final_total - result.ok, 0),
        "errors": result.errors,
    }
