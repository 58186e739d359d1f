"""Turn raw runs into figures: throughput, latency percentiles, CPU time per process, load average."""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from bench.load import LoadResult

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of `values` (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    # The smallest value with at least `fraction` of the values at or below it (the tolerance absorbs
    # float error such as 0.07 * 100 = 7.000000000000001).
    rank = max(0, min(len(ordered) - 1, math.ceil(fraction * len(ordered) - 1e-9) - 1))
    return ordered[rank]


def summarise(result: LoadResult) -> dict:
    """Requests/s and p50/p99 latency (ms) of one run."""
    done = len(result.latencies)
    return {
        "concurrency": result.concurrency,
        "requests": done + result.errors,
        "ok": result.ok,
        "errors": result.errors,
        "statuses": {str(status): count for status, count in sorted(result.statuses.items())},
        "seconds": round(result.seconds, 3),
        "per_second": round(done / result.seconds, 1) if result.seconds else 0.0,
        "p50_ms": round(percentile(result.latencies, 0.50) * 1000, 2),
        "p99_ms": round(percentile(result.latencies, 0.99) * 1000, 2),
        "mean_ms": round(statistics.fmean(result.latencies) * 1000, 2) if done else 0.0,
    }


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process (all its threads) has used so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    # After the command name: state is field 0, utime field 11, stime field 12.
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


@contextmanager
def cpu_share(pids: Mapping[str, int | Sequence[int]], into: dict) -> Iterator[None]:
    """Record how many CPU seconds each role (one process, or several summed) used during the block."""
    groups = {role: [pid] if isinstance(pid, int) else list(pid) for role, pid in pids.items()}

    def used() -> dict[str, float]:
        return {role: sum(cpu_seconds(pid) for pid in members) for role, members in groups.items()}

    before = used()
    yield
    into["cpu_seconds"] = {role: round(seconds - before[role], 2) for role, seconds in used().items()}


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages."""
    return [round(value, 2) for value in os.getloadavg()]


def site_cpu_ms(row: dict, summary: dict) -> float | None:
    """The site's CPU milliseconds per request in a run: the figure shared-machine noise moves least."""
    seconds = row.get("cpu_seconds", {}).get("site")
    return round(seconds * 1000 / summary["requests"], 2) if seconds and summary["requests"] else None
