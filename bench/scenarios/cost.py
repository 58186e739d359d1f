"""What counting adds to a page: counted vs uncounted twin vs one raw UpdateItem, interleaved at C=1."""

from __future__ import annotations

import http.client
import time
from urllib.parse import urlsplit

from bench.budget import Budget
from bench.environment import BENCH_PAGE, BenchEnvironment
from bench.measure import percentile
from bench.scenarios.store import RawCounter

MS = 1000


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """p50 of the counted page minus p50 of its uncounted twin, next to a raw UpdateItem's p50.

    The twin (bench/views.py) runs the page's own view body, middleware, template and CSRF cookie,
    with a fixed total in place of the count; so the difference is exactly what counting adds
    (the increment round trip, history tally, push hand-off). The three are interleaved one by one
    so that background load on the machine hits all of them alike.
    """
    parts = urlsplit(env.base_url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    raw = RawCounter(env, "bench-raw-cost")
    timings: dict[str, list[float]] = {"counted": [], "uncounted": [], "raw": []}
    paths = {"counted": f"/pages/{BENCH_PAGE}/", "uncounted": f"/bench/uncounted/{BENCH_PAGE}/"}
    statuses: set[int] = set()

    def page(kind: str) -> float:
        began = time.perf_counter()
        conn.request("GET", paths[kind])
        response = conn.getresponse()
        response.read()
        statuses.add(response.status)
        return time.perf_counter() - began

    def raw_call() -> float:
        began = time.perf_counter()
        raw.add()
        return time.perf_counter() - began

    deadline = time.monotonic() + budget.sample_time_limit
    for i in range(budget.warmup + budget.requests):
        if time.monotonic() > deadline:
            break
        sample = (page("counted"), page("uncounted"), raw_call())
        if i >= budget.warmup:
            for kind, seconds in zip(("counted", "uncounted", "raw"), sample, strict=True):
                timings[kind].append(seconds)
    conn.close()
    p50 = {kind: round(percentile(values, 0.5) * MS, 2) for kind, values in timings.items()}
    p99 = {kind: round(percentile(values, 0.99) * MS, 2) for kind, values in timings.items()}
    added = round(p50["counted"] - p50["uncounted"], 2)
    rows = [
        {"path": label, "samples": len(timings[kind]), "p50_ms": p50[kind], "p99_ms": p99[kind]}
        for kind, label in (
            ("counted", "GET /pages/<slug>/ (counted)"),
            ("uncounted", "GET /bench/uncounted/<slug>/ (same page, not counted)"),
            ("raw", "raw UpdateItem ADD (boto3, no site)"),
        )
    ]
    return {
        "title": "Cost of counting: counted page minus its uncounted twin (C=1, interleaved)",
        "rows": rows,
        "checks": {
            "added_p50_ms": added,
            "allowed_ms": round(p50["raw"] + 1, 2),
            "within_one_round_trip": added <= p50["raw"] + 1,
            "all_200": statuses == {200},
        },
    }
