"""The lean site beacon beside the Django beacon and a do-nothing floor, in one uvicorn process.

At each C, interleaved so all three meet the same background load: `POST /bench/nothing` (an ASGI
endpoint that reads the body and answers 204: what the server costs before any work), `POST /api/hit`
(the site beacon, answered before Django: origin check, rate limit, body, the group-committed count)
and `POST /api/views/<slug>` (the same count through Django's whole stack). Both counting paths must
count exactly the requests they answered 2xx.
"""

from __future__ import annotations

import json

from bench.budget import CONCURRENCIES, Budget
from bench.environment import BENCH_PAGE, BenchEnvironment, bench_asgi_site
from bench.load import Request, run_load
from bench.scenarios.store import RawCounter
from bench.scenarios.views import beacon_request, site_row, writes_per_view

SERVER = "uvicorn"
ORIGIN = "http://docs.bench.example"
HOST = "docs.bench.example"
TITLE = "The site beacon (answered before Django) vs the Django beacon vs a do-nothing floor, one uvicorn"


def site_beacon_request() -> Request:
    """`POST /api/hit` as site.js sends it with sendBeacon from an allowed origin."""
    body = json.dumps(
        {"path": "/bench/", "title": "Bench", "referrer": "https://news.example/", "utm_source": ""}
    )
    headers = {"Origin": ORIGIN, "Content-Type": "text/plain;charset=UTF-8", "Content-Length": str(len(body))}
    return Request("POST", "/api/hit", body.encode(), headers)


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Requests/s, p50/p99 and site CPU ms per request of the three paths at each C; counts must match."""
    del results
    from counters.domain.page_rules import page_name

    paths = {
        "POST /bench/nothing (floor)": Request("POST", "/bench/nothing", b"", {"Content-Length": "0"}),
        "POST /api/hit (site beacon)": site_beacon_request(),
        "POST /api/views/<slug> (Django)": beacon_request(env.csrf_token()),
    }
    pages = {"/api/hit": page_name("/bench", host=HOST), "/api/views/welcome": BENCH_PAGE}
    raw = RawCounter(env, "bench-raw-paired")
    rows, answered = [], dict.fromkeys(pages, 0)
    # One address sends every beacon here: no rate limit (tests/unit/web/asgi/test_site_beacon.py holds it).
    with bench_asgi_site(env, SERVER, COUNTERS_SITE_ORIGINS=ORIGIN, COUNTERS_BEACON_RATE="0") as workers:
        for request in paths.values():  # the warm-up also creates the site beacon's page
            run_load(workers.urls, lambda i, r=request: r, concurrency=1, total=budget.warmup)
        before = {path: env.store.get(name).value for path, name in pages.items()}
        for concurrency in CONCURRENCIES:
            for label, request in paths.items():
                start = env.store.get(pages[request.path]) if request.path in pages else None
                row, ok = site_row(
                    env, raw, budget, f"{label}, {SERVER}", lambda i, r=request: r,
                    concurrency=concurrency, workers=workers,
                )  # fmt: skip
                rows.append(row)
                if start is not None:
                    row["store_writes_per_view"] = writes_per_view(start, env.store.get(pages[request.path]))
                    answered[request.path] += ok
    counted = {path: env.store.get(name).value - before[path] for path, name in pages.items()}
    return {
        "title": TITLE,
        "rows": rows,
        "checks": {
            "answered_2xx": answered,
            "counted": counted,
            "exact": counted == answered and all(counted.values()),
        },
    }
