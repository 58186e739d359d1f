"""Counted views through the site: the beacon and the counted page at each C, against the store limit."""

from __future__ import annotations

from collections.abc import Callable

from bench.budget import CONCURRENCIES, Budget
from bench.environment import BENCH_PAGE, BenchEnvironment, SiteWorkers
from bench.load import Request, run_load
from bench.measure import cpu_share, site_cpu_ms, summarise
from bench.scenarios.store import RawCounter, paired_limit


def beacon_request(token: str, slug: str = BENCH_PAGE) -> Request:
    """`POST /api/views/<slug>` with the CSRF cookie and header a page's script would send."""
    return Request(
        "POST",
        f"/api/views/{slug}",
        b"",
        {"Cookie": f"csrftoken={token}", "X-CSRFToken": token, "Content-Length": "0"},
    )


def site_row(
    env: BenchEnvironment,
    raw: RawCounter,
    budget: Budget,
    label: str,
    request_for: Callable[[int], Request],
    *,
    concurrency: int,
    workers: SiteWorkers | None = None,
) -> tuple[dict, int]:
    """One load run through the site (or through `workers`) at C, next to a store limit measured just
    before it; the row and how many requests were answered 2xx."""
    limit = paired_limit(raw, concurrency=concurrency, budget=budget)
    row: dict = {"path": label, "store_limit_per_second": limit}
    pids, urls = (workers.pids(), workers.urls) if workers else (env.pids(), env.base_url)
    with cpu_share(pids, row):
        result = run_load(
            urls,
            request_for,
            concurrency=concurrency,
            total=budget.requests_at(concurrency),
            time_limit=budget.time_limit,
        )
    summary = summarise(result)
    summary["vs_store_limit"] = round(summary["per_second"] / limit, 3) if limit else None
    summary["site_cpu_ms_per_request"] = site_cpu_ms(row, summary)
    return {**row, **summary}, result.ok


def writes_per_view(before, after) -> float | None:
    """Store writes per counted view between two states of one page: its version counts writes."""
    views = after.value - before.value
    return round((after.version - before.version) / views, 3) if views else None


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Requests/s and p50/p99 of both counted paths at C = 1, 8, 32; the count must match the 2xx answers."""
    token = env.csrf_token()
    paths = {
        "POST /api/views/<slug>": beacon_request(token),
        "GET /pages/<slug>/": Request("GET", f"/pages/{BENCH_PAGE}/"),
    }
    raw = RawCounter(env, "bench-raw-paired")
    before = env.store.get(BENCH_PAGE).value
    rows, answered = [], 0
    for label, request in paths.items():
        warm = run_load(env.base_url, lambda i, r=request: r, concurrency=1, total=budget.warmup)
        answered += warm.ok
        for concurrency in CONCURRENCIES:
            start = env.store.get(BENCH_PAGE)
            row, ok = site_row(env, raw, budget, label, lambda i, r=request: r, concurrency=concurrency)
            row["store_writes_per_view"] = writes_per_view(start, env.store.get(BENCH_PAGE))
            answered += ok
            rows.append(row)
    counted = env.store.get(BENCH_PAGE).value - before
    return {
        "title": "Counted views through the site (daphne, one process), vs the store limit at the same C",
        "rows": rows,
        "checks": {"answered_2xx": answered, "counted": counted, "exact": counted == answered},
    }
