"""A room: audience sockets on one poll's page, every phone votes from one address, timed to the presenter.

Run: .venv/bin/python bench/room.py [--phones 1000] [--at-once 32] [--socket-workers 0] [--json]
(prints numbers; asserts nothing). It starts a throwaway DynamoDB Local and the site under daphne with
the default settings (one address, as a room's Wi-Fi), and a room poll: one process that counts and
holds every socket, or with `--socket-workers N` one counting worker and N socket workers apart,
sharing the machine's Redis (as bench/fanout.py's `split`). Each phone loads the poll's page
(`GET /p/<code>`: its own voter cookie and CSRF token). Then:
- the baseline, today's vote path: as many other phones vote in a dashboard poll (`language`) with no
  audience socket open;
- the room: every phone opens the audience page's socket (`/ws/counters/?page=room:<poll>`, held by a
  Node process on the `ws` package, bench/ws_load.mjs, so this one's clock stays free for the presenter
  and the clients cost little CPU), the presenter's socket opens here, and every phone votes once,
  `--at-once` at a time.
Reported: votes/s of both runs and the room's wall time (the brief: within 10 s); whether every vote
was answered 2xx, counted once (totals and voter records equal the answers), and whether every audience
socket ended on the final totals; from each vote's answer to the first frame on the presenter's socket
carrying that option's total at (or past) the version the answer gave: p50/p95/p99; the CPU the site's
processes and the audience's Node process used in the room's burst; the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import resource
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

from bench.fanout import redis_prefix, started  # noqa: E402
from bench.local_store import bench_dynamo  # noqa: E402
from bench.measure import load_average, percentile  # noqa: E402
from bench.node_clients import NodeClients  # noqa: E402

ROOM_POLL = "room"
BASELINE_POLL = "language"
OPTIONS = ("red", "green", "blue", "yellow")
CONNECT_AT_ONCE = 50
WARM_UP_VOTES = 40
RESULT_PREFIX = "RESULT "
TIME_LIMIT = 120.0  # no burst outlasts this, so a stuck site cannot hang the run


@dataclass(frozen=True)
class Phone:
    """One person's browser: its cookies (voter and CSRF) as a header, and its CSRF token."""

    cookies: str
    token: str


def load_phones(base_url: str, code: str, count: int) -> list[Phone]:
    """`count` phones, each having loaded the audience page once (a voter cookie and a CSRF token each)."""

    def one(_: int) -> Phone:
        response = requests.get(f"{base_url}/p/{code}", timeout=30)
        response.raise_for_status()
        jar = response.cookies.get_dict()
        return Phone("; ".join(f"{k}={v}" for k, v in jar.items()), jar["csrftoken"])

    with ThreadPoolExecutor(16) as pool:
        return list(pool.map(one, range(count)))


@dataclass
class Burst:
    """What a burst of votes did: each answer's status, time, option and the option's version in it."""

    answers: list[tuple[int, float, str, int]] = field(default_factory=list)
    seconds: float = 0.0
    errors: int = 0

    @property
    def ok(self) -> int:
        return sum(1 for status, *_ in self.answers if 200 <= status < 300)


def vote_burst(base_url: str, poll: str, options: list[str], phones: list[Phone], at_once: int) -> Burst:
    """Every phone votes once (options in turn), `at_once` at a time, each thread on a keep-alive session."""
    burst, lock, local = Burst(), threading.Lock(), threading.local()
    deadline = time.monotonic() + TIME_LIMIT

    def vote(i: int) -> None:
        if time.monotonic() > deadline:
            return
        session = getattr(local, "session", None) or requests.Session()
        local.session = session
        phone, option = phones[i], options[i % len(options)]
        headers = {"Cookie": phone.cookies, "X-CSRFToken": phone.token, "Content-Type": "application/json"}
        try:
            response = session.post(
                f"{base_url}/api/polls/{poll}/vote",
                data=json.dumps({"option": option}),
                headers=headers,
                timeout=30,
            )
        except requests.RequestException:
            with lock:
                burst.errors += 1
            return
        answered = time.monotonic()
        version = answer_version(response, f"{poll}.{option}")
        with lock:
            burst.answers.append((response.status_code, answered, f"{poll}.{option}", version))

    began = time.monotonic()
    with ThreadPoolExecutor(at_once) as pool:
        list(pool.map(vote, range(len(phones))))
    burst.seconds = time.monotonic() - began
    return burst


def answer_version(response: requests.Response, counter: str) -> int:
    """The version of `counter` a vote's answer carried (-1 if it carried none)."""
    try:
        options = response.json()["poll"]["options"]
    except (ValueError, KeyError, TypeError):
        return -1
    return next((o.get("version", -1) for o in options if o.get("counter") == counter), -1)


class Presenter:
    """The presenter's socket, read on a thread of its own: when each newer version of a counter arrived."""

    def __init__(self, url: str, origin: str) -> None:
        self.url, self.origin = url, origin
        self.seen: dict[str, tuple[list[int], list[float]]] = {}
        self.viewing: dict[str, int] = {}
        self.ready = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._read()), daemon=True)

    def start(self) -> None:
        self.thread.start()
        if not self.ready.wait(60):
            raise RuntimeError("The presenter's socket had no snapshot within 60 s.")

    async def _read(self) -> None:
        async with connect(self.url, origin=self.origin, ping_interval=None, max_queue=None) as ws:
            while not self.stop.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=0.5)
                except TimeoutError:
                    continue
                self.take(json.loads(raw), time.monotonic())

    def take(self, message: dict, at: float) -> None:
        self.viewing.update(message.get("viewing", {}))
        if message.get("type") not in ("snapshot", "update", "catalog"):
            return
        for counter in message.get("counters", []):
            versions, times = self.seen.setdefault(counter["name"], ([], []))
            if not versions or counter["version"] > versions[-1]:
                versions.append(counter["version"])
                times.append(at)
        if message["type"] == "snapshot":
            self.ready.set()

    def first_at(self, counter: str, version: int) -> float | None:
        """When a frame first showed `counter` at `version` or later (None: never)."""
        versions, times = self.seen.get(counter, ([], []))
        at = bisect.bisect_left(versions, version)
        return times[at] if at < len(times) else None

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)


def latencies_ms(burst: Burst, presenter: Presenter) -> tuple[list[float], int]:
    """From each counted vote's answer to the presenter's frame showing it; and how many never showed."""
    found, missing = [], 0
    for status, answered, counter, version in burst.answers:
        if not 200 <= status < 300 or version < 0:
            continue
        at = presenter.first_at(counter, version)
        if at is None:
            missing += 1
        else:
            found.append(max(0.0, at - answered) * 1000)
    return found, missing


def percentiles(values: list[float]) -> dict[str, float]:
    return {f"p{p}": round(percentile(values, p / 100), 1) for p in (50, 95, 99)}


def counted_in(store, poll: str) -> tuple[int, int]:
    """A poll's total votes and its voter records, read from the store."""
    definition = store.get_poll(poll)
    total = sum(s.value for s in store.get_many(f"{poll}.{o.id}" for o in definition.options))
    return total, len(store.poll_voters(poll))


def burst_figures(burst: Burst, before: tuple[int, int], after: tuple[int, int], phones: int) -> dict:
    """Rate, wall time and exactness of one burst."""
    statuses: dict[str, int] = {}
    for status, *_ in burst.answers:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    added, voters = after[0] - before[0], after[1] - before[1]
    return {
        "votes": phones,
        "seconds": round(burst.seconds, 2),
        "votes_per_second": round(burst.ok / max(burst.seconds, 1e-9), 1),
        "statuses": statuses,
        "errors": burst.errors,
        "counted": added,
        "voters_added": voters,
        "exact": burst.ok == phones == added == voters and burst.errors == 0,
    }


def settle(presenter: Presenter, final: dict[str, list[int]]) -> None:
    """Wait (30 s at most) until the presenter's socket has shown every option's final version."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if all(presenter.first_at(name, version) is not None for name, (_, version) in final.items()):
            return
        time.sleep(0.1)


def room_final(store) -> dict[str, tuple[int, int]]:
    """Every room option's stored total and version."""
    return {s.name: (s.value, s.version) for s in store.get_many(f"{ROOM_POLL}.{o}" for o in OPTIONS)}


def measured(topology, store, poll, args) -> dict:
    """The baseline burst, then the room's: every figure of the run."""
    base = topology.write_urls[0]
    phones = load_phones(base, poll.code, args.phones * 2 + WARM_UP_VOTES)
    warm, plain, room = phones[:WARM_UP_VOTES], phones[WARM_UP_VOTES::2], phones[WARM_UP_VOTES + 1 :: 2]
    dashboard_options = [option.id for option in store.get_poll(BASELINE_POLL).options]
    vote_burst(base, BASELINE_POLL, dashboard_options, warm, args.at_once)  # untimed: first requests
    before = counted_in(store, BASELINE_POLL)
    baseline = vote_burst(base, BASELINE_POLL, dashboard_options, plain, args.at_once)
    baseline_figures = burst_figures(baseline, before, counted_in(store, BASELINE_POLL), len(plain))
    urls = [f"{url}?page=room:{ROOM_POLL}" for url in topology.socket_urls()]
    presenter = Presenter(topology.socket_urls()[0], topology.sockets[0].url)
    presenter.start()
    # The audience in a Node process (bench/ws_load.mjs): this one's clock stays free for the presenter.
    cookies, origin = [p.cookies for p in room], topology.sockets[0].url
    with NodeClients(urls, origin, len(room), watch=[f"{ROOM_POLL}."], cookies=cookies) as node:
        try:
            cpu_before = (*topology.cpu(), node.cpu_seconds())
            before = counted_in(store, ROOM_POLL)
            burst = vote_burst(base, ROOM_POLL, list(OPTIONS), room, args.at_once)
            cpu_after = (*topology.cpu(), node.cpu_seconds())
            room_figures = burst_figures(burst, before, counted_in(store, ROOM_POLL), len(room))
            final = room_final(store)
            settle(presenter, final)
            viewing = presenter.viewing.get(f"room:{ROOM_POLL}", 0)
            seen = node.settle(final, timeout=30)
        finally:
            presenter.close()
    found, missing = latencies_ms(burst, presenter)
    sides = ("site (counting)", "socket-only workers", "audience clients (Node)")
    return {
        "phones": len(room),
        "at_once": args.at_once,
        "socket_workers": args.socket_workers,
        "baseline": baseline_figures,
        "room": room_figures,
        "room_vs_baseline": round(
            room_figures["votes_per_second"] / max(baseline_figures["votes_per_second"], 1e-9), 2
        ),
        "within_10_s": room_figures["seconds"] <= 10,
        "answer_to_presenter_ms": percentiles(found),
        "answers_never_shown": missing,
        "audience_sockets": len(room),
        "audience_connect_seconds": round(node.connect_seconds, 2),
        "audience_converged": sum(socket.holds(final) for socket in seen),
        "audience_frames": sum(socket.frames for socket in seen),
        "cpu_seconds": {k: round(a - b, 1) for k, a, b in zip(sides, cpu_after, cpu_before, strict=True)},
        "viewing_now_on_presenter": viewing,
        "exact": baseline_figures["exact"] and room_figures["exact"] and all(s.holds(final) for s in seen),
        "load_average": load_average(),
    }


def run(args) -> dict:
    """Start DynamoDB Local, the room poll and the site (default settings); measure."""
    from counters.domain.values import PollDefinition, PollOption
    from counters.services.setup import store_prepare
    from counters.store import get_store
    from tests.support.site import site_env_for

    # One process holding every socket, or a counting worker and socket workers apart sharing Redis.
    split = "split" if args.socket_workers else "one"
    topology = argparse.Namespace(topology=split, counting_workers=1, socket_workers=args.socket_workers)
    with bench_dynamo() as local, tempfile.TemporaryDirectory() as tmp, redis_prefix(topology) as shared:
        store_prepare(demo=True)
        store = get_store()
        options = tuple(PollOption(id=o, label=o.title()) for o in OPTIONS)
        poll = store.create_poll(PollDefinition(id=ROOM_POLL, question="Which colour?", options=options))
        env = site_env_for(store, local, Path(tmp), COUNTERS_LOG_LEVEL="WARNING", **shared)
        with started(topology, env, Path(tmp)) as sites:
            return measured(sites, store, poll, args)


def print_figures(f: dict) -> None:
    """Print the figures for a reader."""
    base, room, ms = f["baseline"], f["room"], f["answer_to_presenter_ms"]
    where = f"{f['socket_workers']} socket worker(s) apart" if f["socket_workers"] else "one process"
    print(f"{f['phones']} phones on one address, {f['at_once']} voting at once; sockets held by {where}")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in f['load_average'])}")
    print(
        "baseline, today's vote path (a dashboard poll, no audience socket open): "
        f"{base['votes_per_second']:,.0f} votes/s, {base['seconds']} s, answers {base['statuses']}, "
        f"exact {base['exact']}"
    )
    print(
        f"room, {f['audience_sockets']} audience sockets open (connected in "
        f"{f['audience_connect_seconds']} s): {room['votes_per_second']:,.0f} votes/s "
        f"({f['room_vs_baseline']}x the baseline) in {room['seconds']} s (within 10 s: {f['within_10_s']}); "
        f"answers {room['statuses']}, counted {room['counted']}, voter records {room['voters_added']}, "
        f"exact {room['exact']}"
    )
    print(
        f"vote answer -> presenter's frame: p50 {ms['p50']} ms, p95 {ms['p95']} ms, p99 {ms['p99']} ms "
        f"(never shown: {f['answers_never_shown']})"
    )
    print(
        f"audience sockets on the final totals: {f['audience_converged']}/{f['audience_sockets']}; "
        f"viewing now, as the presenter's socket heard it: {f['viewing_now_on_presenter']}"
    )
    print("CPU in the room's burst: " + ", ".join(f"{side} {s}s" for side, s in f["cpu_seconds"].items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=1000, help="audience sockets, and votes in each burst")
    parser.add_argument("--at-once", type=int, default=32, help="votes in flight at once")
    parser.add_argument(
        "--socket-workers", type=int, default=0, help="socket workers apart from the counting one (0: none)"
    )
    parser.add_argument("--json", action="store_true", help="end with one line: RESULT <figures as JSON>")
    args = parser.parse_args()
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    # Both ends of every connection live on this machine; the site inherits the limit.
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(4096, 3 * args.phones + 256)), hard))
    figures = run(args)
    print_figures(figures)
    if args.json:
        print(RESULT_PREFIX + json.dumps(figures))


if __name__ == "__main__":
    main()
