"""Fan-out of the live push: N websocket clients on one daphne process, a burst of page views.

Run: .venv/bin/python bench/fanout.py [--clients 1000] [--writes 600] [--writers 8]
(prints numbers; asserts nothing). It starts a throwaway DynamoDB Local and one daphne process with
the in-memory channel layer, connects the clients (each waits for its snapshot), then counts views
of three pages as fast as `--writers` threads can over HTTP, once before any client connects (the
rate counting keeps with no dashboard open) and once with all of them open. Reported:
- the counting rate with the clients open as a share of the rate without;
- latency from the start of the write that produced a counter's final version to each client's
  receipt of that version (p50/p95/p99 over every client x counter);
- update frames per client per second (mean over the burst, and the most in any 1 s window);
- daphne's peak RSS per connection (peak after the burst minus RSS before any client connected);
- whether every client ended with the exact final totals and versions of every counter.
Clients and writers share this process, so latencies include its own queueing (an upper bound).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "counters_site.test_settings")

import django

django.setup()

import requests  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from bench.local_store import bench_dynamo  # noqa: E402
from counters import conf  # noqa: E402

PAGES = ("welcome", "docs", "pricing")
CONNECT_AT_ONCE = 50
RESULT_PREFIX = "RESULT "
VERSION_IN_PAGE = re.compile(r'data-counter="(?P<name>[^"]+)" data-version="(?P<version>\d+)"')


@dataclass
class Client:
    """What one websocket client saw: newest state per counter and when it arrived."""

    known: dict[str, tuple[int, int, float]] = field(default_factory=dict)  # name -> value, version, at
    frames: list[float] = field(default_factory=list)
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    def take(self, message: dict, at: float) -> None:
        for counter in message["counters"]:
            held = self.known.get(counter["name"])
            if held is None or counter["version"] > held[1]:
                self.known[counter["name"]] = (counter["value"], counter["version"], at)
        if message["type"] == "update":
            self.frames.append(at)
        else:
            self.ready.set()


async def listen(url: str, origin: str, client: Client, stop: asyncio.Event, gate: asyncio.Semaphore) -> None:
    """Hold one connection open until `stop`, recording every frame."""
    async with gate:
        ws = await connect(url, origin=origin, open_timeout=60, ping_interval=None, max_queue=None)
    async with ws:
        reader = asyncio.ensure_future(_read(ws, client))
        await stop.wait()
        reader.cancel()


async def _read(ws, client: Client) -> None:
    async for raw in ws:
        client.take(json.loads(raw), time.monotonic())


def rss_kib(pid: int, field_name: str) -> int:
    """A memory figure of a process from /proc (VmRSS now, VmHWM peak), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    raise LookupError(field_name)


def cpu_seconds(pid: int) -> float:
    """User + system CPU a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def burst(
    base_url: str, writes: int, writers: int
) -> tuple[dict[tuple[str, int], tuple[float, float]], float, float]:
    """Count `writes` page views over HTTP; return when each (page, version) write started and was
    answered, and the burst's first and last moment."""
    started_at: dict[tuple[str, int], tuple[float, float]] = {}
    lock = threading.Lock()
    local = threading.local()

    def one(i: int) -> None:
        session = getattr(local, "session", None) or requests.Session()
        local.session = session
        name = PAGES[i % len(PAGES)]
        t0 = time.monotonic()
        response = session.get(f"{base_url}/pages/{name}/", timeout=30)
        response.raise_for_status()
        for match in VERSION_IN_PAGE.finditer(response.text):
            if match["name"] == name:
                with lock:
                    started_at[(name, int(match["version"]))] = (t0, time.monotonic())

    first = time.monotonic()
    with ThreadPoolExecutor(writers) as pool:
        list(pool.map(one, range(writes)))
    return started_at, first, time.monotonic()


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def max_per_second(frames: list[float]) -> int:
    """Most frames inside any half-open one-second window."""
    best, start = 0, 0
    for end, at in enumerate(frames):
        while at - frames[start] >= 1.0:
            start += 1
        best = max(best, end - start + 1)
    return best


async def run(site, store, args) -> dict:
    """Connect the clients, make the burst, print the figures and return them."""
    url = site.url.replace("http://", "ws://") + "/ws/counters/"
    pid = site.process.pid
    # Counting with no dashboard open first: the rate the fan-out must not starve, in this same run.
    cpu_alone = cpu_seconds(pid)
    _, alone_first, alone_last = await asyncio.to_thread(burst, site.url, args.writes, args.writers)
    alone_rate = args.writes / max(alone_last - alone_first, 1e-9)
    cpu_alone = cpu_seconds(pid) - cpu_alone
    baseline = rss_kib(pid, "VmRSS")
    clients = [Client() for _ in range(args.clients)]
    stop, gate = asyncio.Event(), asyncio.Semaphore(CONNECT_AT_ONCE)
    t0 = time.monotonic()
    tasks = [asyncio.ensure_future(listen(url, site.url, c, stop, gate)) for c in clients]
    await asyncio.wait_for(asyncio.gather(*(c.ready.wait() for c in clients)), timeout=600)
    connect_seconds = time.monotonic() - t0
    connected_rss = rss_kib(pid, "VmRSS")

    cpu_before = cpu_seconds(pid), cpu_seconds(os.getpid())
    started_at, first, last = await asyncio.to_thread(burst, site.url, args.writes, args.writers)
    final = {s.name: (s.value, s.version) for s in store.list_counters()}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(
        all(c.known.get(n, (0, 0))[:2] == final[n] for n in PAGES) for c in clients
    ):
        await asyncio.sleep(0.2)
    await asyncio.sleep(3 * conf.broadcast_interval())
    peak = rss_kib(pid, "VmHWM")
    cpu_used = cpu_seconds(pid) - cpu_before[0], cpu_seconds(os.getpid()) - cpu_before[1]
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)

    converged = sum(all(c.known.get(n, (0, 0, 0))[:2] == v for n, v in final.items()) for c in clients)
    finals = [(c, name, started_at.get((name, final[name][1]))) for c in clients for name in PAGES]
    # From the start of the final write's request, and from its answer (the push may beat the answer).
    latencies = [(c.known[n][2] - w[0]) * 1000 for c, n, w in finals if w and c.known[n][1] == final[n][1]]
    after_answer = [(c.known[n][2] - w[1]) * 1000 for c, n, w in finals if w and c.known[n][1] == final[n][1]]
    span = max(last - first, 1e-9)
    # Each client's update frames over the time from the first write to its last frame.
    rates = [len(c.frames) / max(c.frames[-1] - first, span) for c in clients if c.frames]
    peaks = [max_per_second(c.frames) for c in clients]

    print(
        f"clients {args.clients}, writes {args.writes} by {args.writers} threads over HTTP, "
        f"pages {', '.join(PAGES)}"
    )
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print(f"connect + snapshot of all clients: {connect_seconds:.2f}s")
    print(
        f"counting with no dashboard open: {alone_rate:,.0f} writes/s (daphne CPU {cpu_alone:.1f}s); "
        f"with {args.clients} open: {args.writes} writes in {span:.2f}s = "
        f"{args.writes / span:,.0f} writes/s, "
        f"{args.writes / span / alone_rate:.0%} of that"
    )
    if latencies:
        print(
            "write -> final state at client: "
            f"p50 {percentile(latencies, 50):.0f} ms, p95 {percentile(latencies, 95):.0f} ms, "
            f"p99 {percentile(latencies, 99):.0f} ms, max {max(latencies):.0f} ms ({len(latencies)} samples)"
        )
        print(
            "   measured from the write's HTTP answer instead: "
            f"p50 {percentile(after_answer, 50):.0f} ms, p95 {percentile(after_answer, 95):.0f} ms, "
            f"p99 {percentile(after_answer, 99):.0f} ms"
        )
    print(
        f"frames per client per second: mean {statistics.mean(rates):.1f}, "
        f"most in any 1 s window {max(peaks)} (median client {statistics.median(peaks):.0f})"
    )
    print(
        f"daphne RSS: {baseline / 1024:.0f} MiB idle, {connected_rss / 1024:.0f} MiB connected, "
        f"peak {peak / 1024:.0f} MiB -> {(peak - baseline) / args.clients:.0f} KiB per connection"
    )
    print(f"CPU during the burst: daphne {cpu_used[0]:.1f}s, this bench process {cpu_used[1]:.1f}s")
    print(f"converged to the exact final totals and versions: {converged}/{args.clients} clients")
    return {
        "clients": args.clients,
        "converged": converged,
        "writes": args.writes,
        "writes_per_second": round(args.writes / span, 1),
        "writes_per_second_no_dashboards": round(alone_rate, 1),
        "counting_kept": round(args.writes / span / alone_rate, 3),
        "cpu_seconds": {"site": round(cpu_used[0], 1), "clients + writers": round(cpu_used[1], 1)},
        "latency_ms": {p: round(percentile(latencies, p)) if latencies else None for p in (50, 95, 99)},
        "frames_per_second_mean": round(statistics.mean(rates), 2) if rates else 0,
        "frames_in_any_second_max": max(peaks) if peaks else 0,
        "rss_kib_per_connection": round((peak - baseline) / args.clients),
        "load_average": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--writes", type=int, default=600)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--json", action="store_true", help="end with one line: RESULT <figures as JSON>")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # Both ends of every connection live on this machine; daphne inherits the limit.
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.clients + 256)), hard))

    from counters.services.setup import store_prepare
    from counters.store import get_store
    from tests.support.processes import SiteProcess
    from tests.support.site import site_env_for

    with bench_dynamo() as local, tempfile.TemporaryDirectory() as tmp:
        store_prepare(demo=True)
        store = get_store()
        env = site_env_for(store, local, Path(tmp), COUNTERS_LOG_LEVEL="WARNING")
        with SiteProcess(env=env, log_path=Path(tmp) / "site.log") as site:
            figures = asyncio.run(run(site, store, args))
    if args.json:
        print(RESULT_PREFIX + json.dumps(figures))


if __name__ == "__main__":
    main()
