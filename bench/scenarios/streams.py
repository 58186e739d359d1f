"""Outside writes pushed live from the table's stream: bench/streams.py in a process of its own."""

from __future__ import annotations

from bench.budget import Budget
from bench.environment import BenchEnvironment
from bench.scenarios.fanout import figures_of

TITLE = "Streams: another service's ADDs reach an open dashboard socket"


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """200 outside ADDs a second for 60 s (quick: 50/s for 3 s) against the site's own writes; report them."""
    del env, results
    quick = ["--quick"] if budget.fanout_clients < 1000 else []
    figure = figures_of("bench/streams.py", *quick)
    if "failed" in figure:
        return {"title": TITLE, "available": False, "detail": figure["failed"]}
    checks = {"exact": figure["outside_missing"] == 0 and figure["never_went_back"]}
    return {"title": TITLE, "available": True, "figure": figure, "checks": checks}
