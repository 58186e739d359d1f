"""What one frame costs per socket: frames encoded once vs channels' `send`, to N real sockets.

Run: .venv/bin/python bench/hand_out.py [--clients 1000] [--frames 20] [--size 200] [--rounds 4]
(prints numbers; asserts nothing). It starts a throwaway DynamoDB Local and one daphne process
serving bench/asgi.py (the site plus a hand-out endpoint), connects the websocket clients, then in
alternating rounds has the site hand `--frames` frames of `--size` bytes to every socket, along the
old path (each consumer's channels `send`: daphne, autobahn, Twisted, per socket) and the new one
(`LocalFanout.hand_out`: the frame encoded once, its bytes written to each socket's transport).
Reported per path (median over rounds), both per socket per frame:
- the hand-out's wall time on daphne's loop (what the fan-out's time budget sees) and its CPU time
  (the loop thread's; the wall time also counts waits for a core on a busy machine);
- daphne's CPU (from /proc) from the request until every client has read every frame, which also
  covers the socket writes Twisted makes after the hand-out returned.
Every client checks it read each frame whole and in order (`frames in order`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "counters_site.test_settings")

import django

django.setup()

import requests  # noqa: E402

from bench.asgi import HAND_OUT_PATH  # noqa: E402
from bench.local_store import bench_dynamo  # noqa: E402
from bench.measure import cpu_seconds  # noqa: E402
from bench.ws_clients import hold_open  # noqa: E402

CONNECT_AT_ONCE = 50
RESULT_PREFIX = "RESULT "
PATHS = ("send", "direct")


class Reader:
    """One websocket client: counts the bench's frames and whether each came whole and in order."""

    def __init__(self, frames: int, size: int) -> None:
        self.frames, self.size = frames, size
        self.read = 0
        self.in_order = True
        self.ready = asyncio.Event()

    def take(self, raw: str) -> None:
        frame = json.loads(raw)
        if frame["type"] == "snapshot":
            self.ready.set()
        elif "frame" in frame:
            # A frame's number restarts at 0 with each round of `frames`.
            self.in_order &= frame["frame"] == self.read % self.frames and len(raw) == self.size
            self.read += 1


async def one_round(site, readers: list[Reader], path: str, args) -> dict:
    """Hand out one round of frames along `path`; its costs per socket per frame in µs."""
    expected = readers[0].read + args.frames
    cpu = cpu_seconds(site.process.pid)
    query = f"frames={args.frames}&size={args.size}&path={path}&pause={args.pause}"
    url = f"{site.url}{HAND_OUT_PATH}?{query}"
    answer = await asyncio.to_thread(lambda: requests.post(url, timeout=300).json())
    deadline = time.monotonic() + 120
    while any(r.read < expected for r in readers) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    cpu = cpu_seconds(site.process.pid) - cpu
    sends = args.frames * answer["sockets"]
    return {
        "path": path,
        "hand_out_us": answer["seconds"] / sends * 1e6,
        "hand_out_cpu_us": answer["cpu_seconds"] / sends * 1e6,
        "cpu_us": cpu / sends * 1e6,
        "direct_share": answer["direct"] / sends,
        "all_read": all(r.read == expected for r in readers),
    }


async def run(site, args) -> dict:
    """Connect the clients, alternate rounds of both paths, print and return the medians."""
    url = site.url.replace("http://", "ws://") + "/ws/counters/"
    readers = [Reader(args.frames, args.size) for _ in range(args.clients)]
    stop, gate = asyncio.Event(), asyncio.Semaphore(CONNECT_AT_ONCE)
    tasks = [asyncio.ensure_future(hold_open(url, site.url, r.take, stop, gate)) for r in readers]
    await asyncio.wait_for(asyncio.gather(*(r.ready.wait() for r in readers)), timeout=600)
    rounds = [await one_round(site, readers, PATHS[i % 2], args) for i in range(2 * args.rounds)]
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    figures = {"clients": args.clients, "frames_per_round": args.frames, "frame_bytes": args.size}
    for path in PATHS:
        mine = [r for r in rounds if r["path"] == path]
        figures[path] = {
            key: round(statistics.median(r[key] for r in mine), 2)
            for key in ("hand_out_us", "hand_out_cpu_us", "cpu_us", "direct_share")
        }
        figures[path]["all_read"] = all(r["all_read"] for r in mine)
    figures["frames_in_order"] = all(r.in_order for r in readers)
    figures["load_average"] = os.getloadavg()[0]
    report(figures, args.rounds)
    return figures


def report(figures: dict, rounds: int) -> None:
    """Print the figures."""
    size, frames = figures["frame_bytes"], figures["frames_per_round"]
    print(
        f"{figures['clients']} sockets, {frames} frames of {size} bytes per round, {rounds} rounds per path"
        f" (median), load average {figures['load_average']:.2f}"
    )
    for path, label in (("send", "channels send (before)"), ("direct", "encoded once (now)")):
        row = figures[path]
        print(
            f"{label:>24}: hand-out {row['hand_out_us']:.1f} us ({row['hand_out_cpu_us']:.1f} us CPU), daphne"
            f" CPU {row['cpu_us']:.1f} us per socket per frame; direct {row['direct_share']:.0%};"
            f" all read: {row['all_read']}"
        )
    ratio = figures["send"]["cpu_us"] / max(figures["direct"]["cpu_us"], 1e-9)
    print(
        f"daphne CPU per socket per frame, before / now: {ratio:.1f}x; in order: {figures['frames_in_order']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--size", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument(
        "--pause", type=float, default=0.1, help="seconds between frames (the push's interval)"
    )
    parser.add_argument("--json", action="store_true", help="end with one line: RESULT <figures as JSON>")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.clients + 256)), hard))

    from counters.services.setup import store_prepare
    from counters.store import get_store
    from tests.support.processes import SiteProcess
    from tests.support.site import site_env_for

    with bench_dynamo() as local, tempfile.TemporaryDirectory() as tmp:
        store_prepare(demo=True)
        # All the bench's clients share 127.0.0.1: no per-address socket limit here.
        env = site_env_for(
            get_store(), local, Path(tmp), COUNTERS_LOG_LEVEL="WARNING", COUNTERS_SOCKETS_PER_ADDRESS="0"
        )
        site = SiteProcess(
            env=env, log_path=Path(tmp) / "site.log", application="bench.asgi:application", quiet=True
        )
        with site:
            figures = asyncio.run(run(site, args))
    if args.json:
        print(RESULT_PREFIX + json.dumps(figures))


if __name__ == "__main__":
    main()
