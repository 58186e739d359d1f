"""A room: audience sockets on one poll's page, every phone votes from one address, timed to the presenter.

Run: .venv/bin/python bench/room.py [--phones 1000] [--at-once 32] [--json]
(prints numbers; asserts nothing). It starts a throwaway DynamoDB Local and the site under daphne with
the default settings (one address, as a room's Wi-Fi), and a room poll. Each phone loads the poll's page
(`GET /p/<code>`: its own voter cookie and CSRF token). Then:
- the baseline, today's vote path: as many other phones vote in a dashboard poll (`language`) with no
  audience socket open;
- the room: every phone opens the audience page's socket (`/ws/counters/?page=room:<poll>`, in a process
  of its own so this one's clock stays free for the presenter), the presenter's socket opens here, and
  every phone votes once, `--at-once` at a time.
Reported: votes/s of both runs and the room's wall time (the brief: within 10 s); whether every vote
was answered 2xx, counted once (totals and voter records equal the answers), and whether every audience
socket ended on the final totals; from each vote's answer to the first frame on the presenter's socket
carrying that option's total at (or past) the version the answer gave: p50/p95/p99 (brief: p95 <= 250 ms);
the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import multiprocessing
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

from bench.local_store import bench_dynamo  # noqa: E402
from bench.measure import load_average, percentile  # noqa: E402

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


def audience(url: str, origin: str, cookies: list[str], pipe) -> None:
    """In a process of its own: hold every audience socket open; report ready, then what each ended on."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    asyncio.run(_audience(url, origin, cookies, pipe))


async def _audience(url: str, origin: str, cookies: list[str], pipe) -> None:
    gate, stop = asyncio.Semaphore(CONNECT_AT_ONCE), asyncio.Event()
    sockets = [AudienceSocket() for _ in cookies]

    async def hold(i: int) -> None:
        async with gate:
            ws = await connect(url, origin=origin, additional_headers={"Cookie": cookies[i]},
                               open_timeout=120, ping_interval=None, max_queue=None)  # fmt: skip
        async with ws:
            reader = asyncio.ensure_future(sockets[i].read(ws))
            await stop.wait()
            reader.cancel()

    tasks = [asyncio.ensure_future(hold(i)) for i in range(len(cookies))]
    await asyncio.wait_for(asyncio.gather(*(socket.ready.wait() for socket in sockets)), timeout=300)
    pipe.send("ready")
    final = await asyncio.to_thread(pipe.recv)  # {counter: [value, version]} once the votes are in
    deadline = time.monotonic() + 30
    while sum(socket.holds(final) for socket in sockets) < len(sockets) and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    converged = sum(socket.holds(final) for socket in sockets)
    pipe.send({"converged": converged, "frames": sum(socket.frames for socket in sockets)})
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)


class AudienceSocket:
    """One audience socket: its frames that name the room poll, kept raw and read only when asked."""

    def __init__(self) -> None:
        self.ready = asyncio.Event()
        self.frames = 0
        self.raw: list[str] = []
        self.known: dict[str, list[int]] = {}

    async def read(self, ws) -> None:
        # Parsing every frame of a thousand sockets would take the cores the site and voters need.
        async for raw in ws:
            self.frames += 1
            if f'"{ROOM_POLL}.' in raw:
                self.raw.append(raw)
            if '"snapshot"' in raw[:40]:  # the first frame: {"type": "snapshot", ...}
                self.ready.set()

    def holds(self, final: dict[str, list[int]]) -> bool:
        """Whether the newest states received are `final` (reads the frames that came since last asked)."""
        frames, self.raw = self.raw, []
        for raw in frames:
            for counter in json.loads(raw).get("counters", []):
                held = self.known.get(counter["name"])
                if "value" in counter and (held is None or counter["version"] > held[1]):
                    self.known[counter["name"]] = [counter["value"], counter["version"]]
        return all(self.known.get(name) == state for name, state in final.items())


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


def open_audience(ws_url: str, origin: str, phones: list[Phone]):
    """Start the audience's process and wait until every socket has its snapshot; (process, pipe, s)."""
    context = multiprocessing.get_context("spawn")
    pipe, child = context.Pipe()
    url = f"{ws_url}?page=room:{ROOM_POLL}"
    process = context.Process(target=audience, args=(url, origin, [p.cookies for p in phones], child))
    began = time.monotonic()
    process.start()
    if not pipe.poll(330) or pipe.recv() != "ready":
        process.kill()
        raise RuntimeError("The audience's sockets did not all open within 330 s.")
    return process, pipe, time.monotonic() - began


def measured(site, store, poll, args) -> dict:
    """The baseline burst, then the room's: every figure of the run."""
    base, ws_url = site.url, site.url.replace("http://", "ws://") + "/ws/counters/"
    phones = load_phones(base, poll.code, args.phones * 2 + WARM_UP_VOTES)
    warm, plain, room = phones[:WARM_UP_VOTES], phones[WARM_UP_VOTES::2], phones[WARM_UP_VOTES + 1 :: 2]
    dashboard_options = [option.id for option in store.get_poll(BASELINE_POLL).options]
    vote_burst(base, BASELINE_POLL, dashboard_options, warm, args.at_once)  # untimed: first requests
    before = counted_in(store, BASELINE_POLL)
    baseline = vote_burst(base, BASELINE_POLL, dashboard_options, plain, args.at_once)
    baseline_figures = burst_figures(baseline, before, counted_in(store, BASELINE_POLL), len(plain))
    presenter = Presenter(ws_url, base)
    presenter.start()
    process, pipe, connect_seconds = open_audience(ws_url, base, room)
    try:
        before = counted_in(store, ROOM_POLL)
        burst = vote_burst(base, ROOM_POLL, list(OPTIONS), room, args.at_once)
        room_figures = burst_figures(burst, before, counted_in(store, ROOM_POLL), len(room))
        final = {s.name: [s.value, s.version] for s in store.get_many(f"{ROOM_POLL}.{o}" for o in OPTIONS)}
        settle(presenter, final)
        viewing = presenter.viewing.get(f"room:{ROOM_POLL}", 0)
        pipe.send(final)
        seen = pipe.recv() if pipe.poll(90) else {"converged": None, "frames": None}
    finally:
        process.join(60)
        if process.is_alive():
            process.kill()
        presenter.close()
    found, missing = latencies_ms(burst, presenter)
    return {
        "phones": len(room),
        "at_once": args.at_once,
        "baseline": baseline_figures,
        "room": room_figures,
        "room_vs_baseline": round(
            room_figures["votes_per_second"] / max(baseline_figures["votes_per_second"], 1e-9), 2
        ),
        "within_10_s": room_figures["seconds"] <= 10,
        "answer_to_presenter_ms": percentiles(found),
        "answers_never_shown": missing,
        "audience_sockets": len(room),
        "audience_connect_seconds": round(connect_seconds, 2),
        "audience_converged": seen["converged"],
        "audience_frames": seen["frames"],
        "viewing_now_on_presenter": viewing,
        "exact": baseline_figures["exact"] and room_figures["exact"] and seen["converged"] == len(room),
        "load_average": load_average(),
    }


def run(args) -> dict:
    """Start DynamoDB Local, the room poll and the site (default settings); measure."""
    from counters.domain.values import PollDefinition, PollOption
    from counters.services.setup import store_prepare
    from counters.store import get_store
    from tests.support.processes import SiteProcess
    from tests.support.site import site_env_for

    with bench_dynamo() as local, tempfile.TemporaryDirectory() as tmp:
        store_prepare(demo=True)
        store = get_store()
        options = tuple(PollOption(id=o, label=o.title()) for o in OPTIONS)
        poll = store.create_poll(PollDefinition(id=ROOM_POLL, question="Which colour?", options=options))
        env = site_env_for(store, local, Path(tmp), COUNTERS_LOG_LEVEL="WARNING")
        with SiteProcess(env=env, log_path=Path(tmp) / "site.log", quiet=True) as site:
            return measured(site, store, poll, args)


def print_figures(f: dict) -> None:
    """Print the figures for a reader."""
    base, room, ms = f["baseline"], f["room"], f["answer_to_presenter_ms"]
    print(f"{f['phones']} phones on one address, {f['at_once']} voting at once")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=1000, help="audience sockets, and votes in each burst")
    parser.add_argument("--at-once", type=int, default=32, help="votes in flight at once")
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
