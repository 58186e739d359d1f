"""Fan-out of the live push: N websocket clients, a burst of page views, on one or on split workers.

Run: .venv/bin/python bench/fanout.py [--clients 1000] [--writes 600] [--writers 8]
     [--topology one|split] [--counting-workers 1] [--socket-workers 1] [--client node|python]
(prints numbers; asserts nothing). It starts a throwaway DynamoDB Local and the site under daphne:
`one`, one process with the in-memory channel layer that counts and holds every socket; `split`,
counting workers and socket workers apart, sharing the machine's Redis (REDIS_URL or the local
default). It connects the clients (each waits for its snapshot; with `split`, spread over the socket
workers), then counts views of three pages as fast as `--writers` threads can over HTTP (spread over
the counting workers), once before any client connects (the rate counting keeps with no dashboard
open) and once with all of them open. Clients and writers reach the workers directly: nginx's routing
of the two kinds is tested in tests/end_to_end/test_split_workers.py, and here it would only add its
own CPU on the same cores. Reported:
- the counting rate with the clients open as a share of the rate without (the mean of a burst before
  the clients connect and one after they left, both after an untimed warm-up);
- latency from the start of the write that produced a counter's final version to each client's
  receipt of that version (p50/p95/p99 over every client x counter);
- update frames per client per second (mean over the burst, and the most in any 1 s window);
- the socket workers' peak RSS per connection (peak after the burst minus RSS before any client connected);
- whether every client ended with the exact final totals and versions of every page counted;
- the CPU each side used in the burst: counting, socket-only workers, the clients, the writers.
The clients are held by a Node process on the `ws` package (bench/ws_load.mjs), which costs a
fraction of the server's CPU per socket and reports its own; `--client python` holds them in this
process instead (asyncio `websockets`, sharing it with the writers). Writers and clients still share
the machine's cores with the site, so latencies include their queueing (an upper bound).
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
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "counters_site.test_settings")

import django

django.setup()

import requests  # noqa: E402

from bench.environment import redis_url  # noqa: E402
from bench.local_store import bench_dynamo  # noqa: E402
from bench.measure import cpu_seconds  # noqa: E402
from bench.node_clients import NodeClients, SocketSeen  # noqa: E402
from bench.ws_clients import hold_open  # noqa: E402
from counters import conf  # noqa: E402

PAGES = ("welcome", "docs", "pricing")
CONNECT_AT_ONCE = 50
WARM_UP_WRITES = 40
RESULT_PREFIX = "RESULT "
VERSION_IN_PAGE = re.compile(r'data-counter="(?P<name>[^"]+)" data-version="(?P<version>\d+)"')


@dataclass
class Client:
    """A Python websocket client (`--client python`): newest state per counter and when it arrived."""

    known: dict[str, tuple[int, int, float]] = field(default_factory=dict)  # name -> value, version, at
    frames: list[float] = field(default_factory=list)
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    def read(self, raw: str) -> None:
        """Take one frame as it arrives."""
        self.take(json.loads(raw), time.monotonic())

    def take(self, message: dict, at: float) -> None:
        if message["type"] not in ("snapshot", "update"):
            return  # a heartbeat or a viewing-now frame: no totals
        for counter in message["counters"]:
            held = self.known.get(counter["name"])
            if held is None or counter["version"] > held[1]:
                self.known[counter["name"]] = (counter["value"], counter["version"], at)
        if message["type"] == "update":
            self.frames.append(at)
        else:
            self.ready.set()

    def seen(self) -> SocketSeen:
        """What the client ended on, as the Node clients report it."""
        last = self.frames[-1] if self.frames else None
        return SocketSeen(dict(self.known), len(self.frames), last, max_per_second(self.frames))


class PythonClients:
    """The clients as asyncio tasks in this process: their CPU is this process's (with the writers')."""

    name = "python"

    async def open(self, topology: Topology, count: int) -> float:
        """Connect every client (spread over the socket workers) and wait for its snapshot; seconds taken."""
        urls, origin = topology.socket_urls(), topology.sockets[0].url
        gate = asyncio.Semaphore(CONNECT_AT_ONCE)
        self.clients, self.stop = [Client() for _ in range(count)], asyncio.Event()
        t0 = time.monotonic()
        self.tasks = [
            asyncio.ensure_future(hold_open(urls[i % len(urls)], origin, client.read, self.stop, gate))
            for i, client in enumerate(self.clients)
        ]
        await asyncio.wait_for(asyncio.gather(*(c.ready.wait() for c in self.clients)), timeout=600)
        return time.monotonic() - t0

    def cpu_seconds(self) -> float:
        return cpu_seconds(os.getpid())

    async def settle(self, final: dict[str, tuple[int, int]]) -> list[SocketSeen]:
        """Wait (a minute at most) until every client holds the final state of the written pages."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(c.seen().holds(final) for c in self.clients):
            await asyncio.sleep(0.2)
        return [c.seen() for c in self.clients]

    async def close(self) -> None:
        self.stop.set()
        await asyncio.gather(*self.tasks, return_exceptions=True)


class NodeSockets:
    """The clients in a Node process on the `ws` package (node_clients.py): its CPU reported apart."""

    name = "node"

    async def open(self, topology: Topology, count: int) -> float:
        """Connect every client (spread over the socket workers) and wait for its snapshot; seconds taken."""
        origin, urls = topology.sockets[0].url, topology.socket_urls()
        self.node = await asyncio.to_thread(NodeClients, urls, origin, count, watch=list(PAGES))
        return self.node.connect_seconds

    def cpu_seconds(self) -> float:
        return self.node.cpu_seconds()

    async def settle(self, final: dict[str, tuple[int, int]]) -> list[SocketSeen]:
        return await asyncio.to_thread(self.node.settle, final)

    async def close(self) -> None:
        await asyncio.to_thread(self.node.close)


def rss_kib(pid: int, field_name: str) -> int:
    """A memory figure of a process from /proc (VmRSS now, VmHWM peak), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    raise LookupError(field_name)


def burst(
    base_urls: list[str], writes: int, writers: int
) -> tuple[dict[tuple[str, int], tuple[float, float]], float, float]:
    """Count `writes` page views over HTTP, spread over `base_urls`; when each (page, version) write
    started and was answered, and the burst's first and last moment."""
    started_at: dict[tuple[str, int], tuple[float, float]] = {}
    lock = threading.Lock()
    local = threading.local()

    def one(i: int) -> None:
        session = getattr(local, "session", None) or requests.Session()
        local.session = session
        name = PAGES[i % len(PAGES)]
        t0 = time.monotonic()
        response = session.get(f"{base_urls[i % len(base_urls)]}/pages/{name}/", timeout=30)
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


def percentiles(values: list[float]) -> dict[int, int | None]:
    """p50, p95 and p99 of `values` in whole units (None when there are none)."""
    return {p: round(percentile(values, p)) if values else None for p in (50, 95, 99)}


def max_per_second(frames: list[float]) -> int:
    """Most frames inside any half-open one-second window."""
    best, start = 0, 0
    for end, at in enumerate(frames):
        while at - frames[start] >= 1.0:
            start += 1
        best = max(best, end - start + 1)
    return best


@dataclass
class Topology:
    """The site's processes: the ones counting (HTTP) and the ones holding the sockets."""

    counting: list
    sockets: list

    @property
    def write_urls(self) -> list[str]:
        return [site.url for site in self.counting]

    def socket_urls(self) -> list[str]:
        return [site.url.replace("http://", "ws://") + "/ws/counters/" for site in self.sockets]

    def cpu(self) -> tuple[float, float]:
        """CPU seconds used so far by the counting processes and by the socket-only ones."""
        counting = sum(cpu_seconds(site.process.pid) for site in self.counting)
        return counting, sum(cpu_seconds(s.process.pid) for s in self.sockets if s not in self.counting)

    def rss_kib(self, field_name: str) -> int:
        return sum(rss_kib(site.process.pid, field_name) for site in self.sockets)


@contextmanager
def started(args, env: dict[str, str], tmp: Path) -> Iterator[Topology]:
    """Start the site's processes for `--topology`; stop them afterwards."""
    from tests.support.processes import SiteProcess

    with ExitStack() as stack:

        def start(name: str) -> SiteProcess:
            return stack.enter_context(SiteProcess(env=env, log_path=tmp / f"{name}.log", quiet=True))

        if args.topology == "one":
            site = start("site")
            yield Topology([site], [site])
            return
        counting = [start(f"counting-{n}") for n in range(args.counting_workers)]
        yield Topology(counting, [start(f"sockets-{n}") for n in range(args.socket_workers)])


async def counting_alone(topology: Topology, args) -> tuple[float, float]:
    """The counting rate (writes/s) and the counting processes' CPU seconds with no dashboard open."""
    cpu = topology.cpu()[0]
    _, first, last = await asyncio.to_thread(burst, topology.write_urls, args.writes, args.writers)
    return args.writes / max(last - first, 1e-9), topology.cpu()[0] - cpu


async def counting_watched(topology: Topology, store, args, clients) -> dict:
    """Count with every client open; what the clients saw, the rate, and the CPU each side used."""
    cpu_before = (*topology.cpu(), clients.cpu_seconds(), cpu_seconds(os.getpid()))
    started_at, first, last = await asyncio.to_thread(burst, topology.write_urls, args.writes, args.writers)
    final = {s.name: (s.value, s.version) for s in store.list_counters() if s.name in PAGES}
    seen = await clients.settle(final)
    # Settled: a few intervals more, so any frame still on its way is counted in the rates.
    await asyncio.sleep(3 * conf.broadcast_interval())
    cpu_after = (*topology.cpu(), clients.cpu_seconds(), cpu_seconds(os.getpid()))
    used = [round(after - before, 1) for after, before in zip(cpu_after, cpu_before, strict=True)]
    figures = client_figures(seen, final, started_at, first, last)
    figures["writes_per_second"] = round(args.writes / max(last - first, 1e-9), 1)
    # With Python clients the clients are this process: their CPU is the bench process's.
    sides = ("counting", "sockets", "clients", "bench process (writers)")
    figures["cpu_seconds"] = dict(zip(sides, used, strict=True))
    return figures


async def run(topology: Topology, store, args) -> dict:
    """Count alone, then with every client open, then alone again; the figures."""
    # Untimed: a fresh process's first requests pay for imports, connections and caches.
    await asyncio.to_thread(burst, topology.write_urls, WARM_UP_WRITES, args.writers)
    before = await counting_alone(topology, args)
    baseline = topology.rss_kib("VmRSS")
    clients = NodeSockets() if args.client == "node" else PythonClients()
    connect_seconds = await clients.open(topology, args.clients)
    try:
        figures = await counting_watched(topology, store, args, clients)
        peak = topology.rss_kib("VmHWM")
    finally:
        await clients.close()
    # Again once the clients are gone, so a drift of the machine's load shows in the baseline.
    after = await counting_alone(topology, args)
    alone = (before[0] + after[0]) / 2
    figures.update(
        topology=args.topology,
        client=args.client,
        counting_workers=len(topology.counting),
        socket_workers=len(topology.sockets) if args.topology == "split" else 0,
        clients=args.clients,
        writes=args.writes,
        writes_per_second_no_dashboards=round(alone, 1),
        writes_per_second_no_dashboards_before_after=[round(before[0], 1), round(after[0], 1)],
        counting_kept=round(figures["writes_per_second"] / alone, 3),
        connect_seconds=round(connect_seconds, 2),
        rss_kib_per_connection=round((peak - baseline) / args.clients),
        load_average=os.getloadavg()[0],
    )
    figures["cpu_seconds"]["counting, no dashboard"] = round(before[1], 1)
    return figures


def client_figures(seen: list[SocketSeen], final: dict, started_at: dict, first: float, last: float) -> dict:
    """Convergence, write-to-client latency and frame rates from what the clients saw."""
    converged = sum(socket.holds(final) for socket in seen)
    finals = [(c, name, started_at.get((name, final[name][1]))) for c in seen for name in PAGES]
    held = [(c.known[n][2], w) for c, n, w in finals if w and n in c.known and c.known[n][1] == final[n][1]]
    # From the start of the final write's request, and from its answer (the push may beat the answer).
    latencies = [(at - w[0]) * 1000 for at, w in held]
    after_answer = [(at - w[1]) * 1000 for at, w in held]
    span = max(last - first, 1e-9)
    # Each client's update frames over the time from the first write to its last frame.
    rates = [c.frames / max(c.last - first, span) for c in seen if c.frames]
    peaks = [c.peak for c in seen]
    return {
        "converged": converged,
        "latency_ms": percentiles(latencies),
        "latency_after_answer_ms": percentiles(after_answer),
        "frames_per_second_mean": round(statistics.mean(rates), 2) if rates else 0,
        "frames_in_any_second_max": max(peaks) if peaks else 0,
        "frames_in_any_second_median": statistics.median(peaks) if peaks else 0,
    }  # fmt: skip


def print_figures(f: dict) -> None:
    """Print the figures for a reader."""
    where = "one process" if f["topology"] == "one" else (
        f"{f['counting_workers']} counting worker(s), {f['socket_workers']} socket worker(s) sharing Redis"
    )  # fmt: skip
    print(f"topology {f['topology']}: {where}; {f['clients']} clients, {f['writes']} writes per burst")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print(f"connect + snapshot of all clients: {f['connect_seconds']:.2f}s")
    alone = " and ".join(f"{rate:,.0f}" for rate in f["writes_per_second_no_dashboards_before_after"])
    print(
        f"counting with no dashboard open (before and after): {alone} writes/s; with {f['clients']} open: "
        f"{f['writes_per_second']:,.0f} writes/s, {f['counting_kept']:.0%} of the mean kept"
    )
    for label, key in (
        ("write -> final state at client", "latency_ms"),
        ("   from the write's answer", "latency_after_answer_ms"),
    ):
        ms = f[key]
        print(f"{label}: p50 {ms[50]} ms, p95 {ms[95]} ms, p99 {ms[99]} ms")
    print(
        f"frames per client per second: mean {f['frames_per_second_mean']:.1f}, most in any 1 s window "
        f"{f['frames_in_any_second_max']} (median client {f['frames_in_any_second_median']:.0f})"
    )
    cpu = f["cpu_seconds"]
    clients = "in this process" if f["client"] == "python" else "a Node process"
    print(
        f"socket workers' RSS per connection: {f['rss_kib_per_connection']} KiB; CPU in the burst: counting "
        f"{cpu['counting']}s, socket-only {cpu['sockets']}s, the clients ({clients}) {cpu['clients']}s, "
        f"this bench process (the writers) {cpu['bench process (writers)']}s"
    )
    print(f"converged to the exact final totals and versions: {f['converged']}/{f['clients']} clients")


@contextmanager
def redis_prefix(args) -> Iterator[dict[str, str]]:
    """The split workers' Redis settings under a prefix of this run's own, its keys removed afterwards."""
    if args.topology == "one":
        yield {}
        return
    import redis

    prefix = f"bench-fanout-{uuid.uuid4().hex[:8]}"
    try:
        yield {"REDIS_URL": redis_url(), "COUNTERS_REDIS_PREFIX": prefix}
    finally:
        client = redis.Redis.from_url(redis_url())
        keys = list(client.scan_iter(f"{prefix}*"))
        if keys:
            client.delete(*keys)
        client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--writes", type=int, default=600)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--topology", choices=("one", "split"), default="one")
    parser.add_argument("--counting-workers", type=int, default=1, help="with --topology split")
    parser.add_argument("--socket-workers", type=int, default=1, help="with --topology split")
    parser.add_argument(
        "--client", choices=("node", "python"), default="node", help="the websocket clients' process"
    )
    parser.add_argument("--json", action="store_true", help="end with one line: RESULT <figures as JSON>")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # Both ends of every connection live on this machine; the workers inherit the limit.
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 2 * args.clients + 256)), hard))

    from counters.services.setup import store_prepare
    from counters.store import get_store
    from tests.support.site import site_env_for

    with bench_dynamo() as local, tempfile.TemporaryDirectory() as tmp, redis_prefix(args) as shared:
        store_prepare(demo=True)
        store = get_store()
        # Every client here comes from 127.0.0.1: the per-address socket limit is not for the bench.
        env = site_env_for(
            store, local, Path(tmp), COUNTERS_LOG_LEVEL="WARNING", COUNTERS_SOCKETS_PER_ADDRESS="0", **shared
        )
        with started(args, env, Path(tmp)) as topology:
            figures = asyncio.run(run(topology, store, args))
    print_figures(figures)
    if args.json:
        print(RESULT_PREFIX + json.dumps(figures))


if __name__ == "__main__":
    main()
