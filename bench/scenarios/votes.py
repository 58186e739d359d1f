"""Votes through the site at each C, if the vote endpoint exists; never a made-up number."""

from __future__ import annotations

import json

from bench.budget import CONCURRENCIES, Budget
from bench.environment import BenchEnvironment
from bench.load import Request, run_load
from bench.scenarios.store import RawCounter
from bench.scenarios.views import site_row

POLL = "language"


def vote_request(token: str, option: str) -> Request:
    """A vote from a new anonymous voter (no voter cookie), so each one is a real vote transaction."""
    return Request(
        "POST",
        f"/api/polls/{POLL}/vote",
        json.dumps({"option": option}).encode(),
        {
            "Cookie": f"csrftoken={token}",
            "X-CSRFToken": token,
            "Content-Type": "application/json",
        },
    )


def option_total(env: BenchEnvironment, options: list[str]) -> int:
    """Sum of the poll's option counters, read from the store."""
    from counters.domain.names import option_counter_name

    return sum(state.value for state in env.store.get_many([option_counter_name(POLL, o) for o in options]))


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Votes/s and p50/p99 at C = 1, 8, 32 with the rate limit off, vs the store limit."""
    title = "Votes through the site (POST /api/polls/<poll>/vote, a new voter each time)"
    options = [option.id for option in env.store.get_poll(POLL).options]
    token = env.csrf_token()
    requests = [vote_request(token, option) for option in options]
    before = option_total(env, options)
    probe = run_load(env.base_url, lambda i: requests[0], concurrency=1, total=1)
    if probe.ok != 1:
        statuses = ", ".join(map(str, probe.statuses)) or "no answer"
        return {"title": title, "available": False, "detail": f"not available (probe answered {statuses})"}
    raw = RawCounter(env, "bench-raw-paired")
    rows, answered = [], probe.ok
    for concurrency in CONCURRENCIES:
        row, ok = site_row(
            env,
            raw,
            budget,
            "POST /api/polls/<poll>/vote",
            lambda i: requests[i % len(requests)],
            concurrency=concurrency,
        )
        answered += ok
        rows.append(row)
    counted = option_total(env, options) - before
    return {
        "title": title,
        "available": True,
        "rows": rows,
        "checks": {"answered_2xx": answered, "counted": counted, "exact": counted == answered},
    }
