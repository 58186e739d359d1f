"""A room (bench/room.py, a process of its own): audience sockets open, every phone votes from one address."""

from __future__ import annotations

from bench.budget import Budget
from bench.environment import BenchEnvironment
from bench.scenarios.fanout import figures_of

TITLE = "A room: audience sockets on one poll's page, every phone voting from one address"


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """As many phones as the fan-out has clients (1,000; 20 quick), beside today's vote path; report them."""
    del env, results
    figure = figures_of("bench/room.py", "--phones", str(budget.fanout_clients))
    if "failed" in figure:
        return {"title": TITLE, "available": False, "detail": figure["failed"]}
    return {"title": TITLE, "available": True, "figure": figure, "checks": {"exact": figure["exact"]}}
