"""Fan-out to many websocket clients: bench/fanout.py and bench/hand_out.py, each in a process of its own."""

from __future__ import annotations

import json
import subprocess
import sys

from bench.budget import Budget
from bench.environment import BenchEnvironment
from tests.support.processes import PROJECT_DIR

TITLE = "Fan-out: one burst of writes pushed to many websocket clients"
RESULT_PREFIX = "RESULT "


def figures_of(script: str, *options: str) -> dict:
    """Run a bench script with `--json` and return its figures, or why it gave none."""
    command = [sys.executable, script, "--json", *options]
    done = subprocess.run(command, cwd=PROJECT_DIR, capture_output=True, text=True, timeout=900)
    lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT_PREFIX)]
    if done.returncode != 0 or not lines:
        detail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        return {"failed": f"{script} failed: " + " | ".join(detail)}
    return json.loads(lines[-1][len(RESULT_PREFIX) :])


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Both topologies and a frame's cost per socket (each its own site and store); report them."""
    del env, results
    clients = str(budget.fanout_clients)
    writes = "600" if budget.fanout_clients >= 1000 else "60"
    one = figures_of("bench/fanout.py", "--clients", clients, "--writes", writes)
    split = figures_of("bench/fanout.py", "--clients", clients, "--writes", writes, "--topology", "split")
    rounds = "4" if budget.fanout_clients >= 1000 else "1"
    hand_out = figures_of("bench/hand_out.py", "--clients", clients, "--rounds", rounds)
    failed = [part["failed"] for part in (one, split, hand_out) if "failed" in part]
    if failed:
        return {"title": TITLE, "available": False, "detail": " / ".join(failed)}
    # The one-process figures stay at the top level, as before; the split workers and the hand-out apart.
    return {"title": TITLE, "available": True, "figure": {**one, "split": split, "hand_out": hand_out}}
