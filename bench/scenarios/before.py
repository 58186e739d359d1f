"""Now against before: the same beacons and votes through the site as it was at a git ref, in this run.

The site at BENCH_BEFORE_REF (default: the last commit before group commit, the lighter request path
and two-round-trip votes) runs from `git archive` on the same store, and each of its runs is
interleaved with the same run through the current site, so both meet the same background load.
"""

from __future__ import annotations

import contextlib
import os

from bench.budget import Budget
from bench.environment import BENCH_PAGE, BenchEnvironment, site_at
from bench.scenarios.store import RawCounter
from bench.scenarios.views import beacon_request, site_row, writes_per_view
from bench.scenarios.votes import option_total, vote_request

BEFORE_REF = os.environ.get("BENCH_BEFORE_REF", "e232902")
TITLE = f"Now vs before ({BEFORE_REF}): the same load through both sites, interleaved"
# (label, concurrency) pairs measured on both sites.
RUNS = (("beacon", 8), ("beacon", 32), ("vote", 8))


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Beacons/s at C=8 and 32 and votes/s at C=8 through the site before and now, with their ratios."""
    del results
    token = env.csrf_token()
    options = [option.id for option in env.store.get_poll("language").options]
    votes = [vote_request(token, option) for option in options]
    requests = {
        "beacon": ("POST /api/views/<slug>", lambda i: beacon_request(token)),
        "vote": ("POST /api/polls/<poll>/vote", lambda i: votes[i % len(votes)]),
    }
    raw = RawCounter(env, "bench-raw-paired")
    views_before, votes_before = env.store.get(BENCH_PAGE).value, option_total(env, options)
    rows, ratios, answered = [], [], {"beacon": 0, "vote": 0}
    with contextlib.ExitStack() as stack:
        try:
            before = stack.enter_context(site_at(env, BEFORE_REF))
        except (RuntimeError, OSError) as error:
            return {"title": TITLE, "available": False, "detail": f"not available ({error})"}
        for kind, concurrency in RUNS:
            label, request_for = requests[kind]
            pair = {}
            for site, workers in (("before", before), ("now", None)):
                start = env.store.get(BENCH_PAGE)
                row, ok = site_row(
                    env,
                    raw,
                    budget,
                    f"{label}, {site}",
                    request_for,
                    concurrency=concurrency,
                    workers=workers,
                )
                if kind == "beacon":
                    row["store_writes_per_view"] = writes_per_view(start, env.store.get(BENCH_PAGE))
                answered[kind] += ok
                rows.append(row)
                pair[site] = row
            ratios.append({"path": label, "concurrency": concurrency, **now_vs_before(pair)})
    counted = {
        "beacon": env.store.get(BENCH_PAGE).value - views_before,
        "vote": option_total(env, options) - votes_before,
    }
    checks = {"answered_2xx": answered, "counted": counted, "exact": counted == answered}
    return {"title": TITLE, "available": True, "rows": rows, "ratios": ratios, "checks": checks}


def now_vs_before(pair: dict[str, dict]) -> dict[str, float | None]:
    """Throughput and site CPU per request now ÷ before (None where a figure is missing)."""
    figures = {
        "per_second": "now_vs_before_per_second",
        "site_cpu_ms_per_request": "now_vs_before_site_cpu_ms",
    }
    return {
        name: round(pair["now"][key] / pair["before"][key], 2)
        if pair["now"].get(key) and pair["before"].get(key)
        else None
        for key, name in figures.items()
    }
