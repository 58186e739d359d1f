"""Fan-out at 1,000 websocket clients, measured by bench/fanout.py in a process of its own."""

from __future__ import annotations

import json
import subprocess
import sys

from bench.budget import Budget
from bench.environment import BenchEnvironment
from tests.support.processes import PROJECT_DIR

TITLE = "Fan-out: one burst of writes pushed to many websocket clients"
RESULT_PREFIX = "RESULT "


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Run bench/fanout.py (its own site and store, so nothing else shares its event loop) and report it."""
    del env, results
    writes = 600 if budget.fanout_clients >= 1000 else 60
    command = [
        sys.executable, "bench/fanout.py", "--json",
        "--clients", str(budget.fanout_clients), "--writes", str(writes),
    ]  # fmt: skip
    done = subprocess.run(command, cwd=PROJECT_DIR, capture_output=True, text=True, timeout=900)
    lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT_PREFIX)]
    if done.returncode != 0 or not lines:
        detail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        return {"title": TITLE, "available": False, "detail": "bench/fanout.py failed: " + " | ".join(detail)}
    return {"title": TITLE, "available": True, "figure": json.loads(lines[-1][len(RESULT_PREFIX) :])}
