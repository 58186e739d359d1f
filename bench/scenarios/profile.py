"""Where the site's time goes under beacon load: py-spy samples of the daphne process, by layer."""

from __future__ import annotations

import collections
import shutil
import subprocess
import sys
from pathlib import Path

from bench.budget import Budget
from bench.environment import BenchEnvironment
from bench.load import run_load
from bench.measure import summarise
from bench.scenarios.views import beacon_request

CONCURRENCY = 8
SAMPLE_RATE = 200
# A frame's file decides its layer; the first match in this order wins.
LAYERS = (
    ("counters/", "app (counters)"),
    ("botocore/", "boto3/botocore (build, sign, parse)"),
    ("boto3/", "boto3/botocore (build, sign, parse)"),
    ("urllib3/", "HTTP client to the store (urllib3, http.client, socket)"),
    ("http/client", "HTTP client to the store (urllib3, http.client, socket)"),
    ("socket.py", "HTTP client to the store (urllib3, http.client, socket)"),
    ("ssl.py", "HTTP client to the store (urllib3, http.client, socket)"),
    ("asgiref/", "asgiref (thread hop per request)"),
    ("concurrent/", "thread pool / thread start"),
    ("threading.py", "thread pool / thread start"),
    ("django/", "Django (handler, middleware, response)"),
    ("daphne/", "daphne + Twisted (HTTP server, event loop)"),
    ("twisted/", "daphne + Twisted (HTTP server, event loop)"),
    ("asyncio/", "asyncio"),
)


def py_spy() -> str | None:
    """The py-spy executable next to this Python, or on PATH."""
    beside = Path(sys.executable).parent / "py-spy"
    return str(beside) if beside.exists() else shutil.which("py-spy")


def layer_of(frame: str) -> str:
    """The layer a `function (file)` frame belongs to."""
    for needle, layer in LAYERS:
        if needle in frame:
            return layer
    return "other"


def summarise_stacks(lines: list[str], top: int = 15) -> dict:
    """Self-time share per layer and per leaf function, and inclusive share of the app's functions."""
    by_layer: collections.Counter[str] = collections.Counter()
    by_leaf: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    for line in lines:
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = stack.split(";")
        total += count
        by_leaf[frames[-1]] += count
        by_layer[layer_of(frames[-1])] += count
        for frame in set(frames):
            if "counters/" in frame:
                inclusive[frame] += count

    def share(counter: collections.Counter[str], n: int | None = None) -> list[list]:
        return [[name, round(100 * count / total, 1)] for name, count in counter.most_common(n)]

    return {
        "samples": total,
        "self_percent_by_layer": share(by_layer) if total else [],
        "self_percent_top_functions": share(by_leaf, top) if total else [],
        "inclusive_percent_app_functions": share(inclusive, top) if total else [],
    }


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Sample daphne with py-spy while C=8 beacons run for the profile's duration."""
    title = f"Profile of the site under beacon load (C={CONCURRENCY}, py-spy, samples holding the GIL)"
    spy = py_spy()
    if spy is None:
        return {"title": title, "available": False, "detail": "py-spy is not installed"}
    env.results_dir.mkdir(parents=True, exist_ok=True)
    output = env.results_dir / f"{env.run_name}-profile-stacks.txt"
    pid = env.pids()["site"]
    seconds = max(1, int(budget.profile_seconds))
    command = [spy, "record", "-p", str(pid), "-d", str(seconds), "-r", str(SAMPLE_RATE)]
    # Only samples holding the GIL: the Python CPU time the site spends, not threads waiting on I/O.
    command += ["-f", "raw", "--nolineno", "--nonblocking", "--gil", "-o", str(output)]
    spy_process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    token = env.csrf_token()
    request = beacon_request(token)
    # Enough requests to outlast the sampling; the time limit ends the load with it.
    load = run_load(env.base_url, lambda i: request, concurrency=CONCURRENCY, total=10**6, time_limit=seconds)
    spy_output, _ = spy_process.communicate(timeout=seconds + 30)
    if spy_process.returncode != 0 or not output.exists():
        detail = spy_output.decode(errors="replace").strip()[-500:]
        return {"title": title, "available": False, "detail": f"py-spy failed: {detail}"}
    lines = output.read_text().splitlines()
    return {
        "title": title,
        "available": True,
        "load": summarise(load),
        "stacks_file": output.name,
        **summarise_stacks(lines),
    }
