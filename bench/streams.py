"""Changes another service makes, pushed live from the table's stream: every one reaches an open socket.

Run: .venv/bin/python bench/streams.py [--rate 200] [--seconds 60] [--quick] [--json]
(prints numbers; asserts nothing). It starts a throwaway DynamoDB Local, the site under daphne with
COUNTERS_STREAM_READER=worker (the reader runs in that one worker), and one dashboard websocket. Then:
- baseline, the app's own writes: page views over HTTP at the same rate for a sixth of the time, each
  matched to the first frame carrying its version (the push the app has always made);
- outside writes: `UpdateItem ADD value :1` on the page's total from a plain boto3 client (another
  service) at `--rate` per second for `--seconds`, each matched to the first frame showing its total or
  a later one (frames are coalesced, ~10 a second).
Reported: write-to-socket p50/p99 of both, whether the socket ended at the last written total having
never gone back, the site process's CPU per outside change (the reader, the push and the one socket,
with the idle worker's CPU over the same time taken off), the stream lag the reader reported, and the
load average. Writer and socket share this process: latencies include its own queueing.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "counters_site.test_settings")

import django

django.setup()

import boto3  # noqa: E402
import requests  # noqa: E402

from bench.local_store import bench_dynamo  # noqa: E402
from bench.measure import cpu_seconds, load_average, percentile  # noqa: E402
from bench.ws_clients import hold_open  # noqa: E402

PAGE = "welcome"
RESULT_PREFIX = "RESULT "
VERSION_IN_PAGE = re.compile(r'data-counter="welcome" data-version="(?P<version>\d+)"')


class Socket:
    """What the dashboard socket saw of the page's counter: (arrival, value, version) per frame."""

    def __init__(self) -> None:
        self.frames: list[tuple[float, int, int]] = []
        self.ready = threading.Event()

    def take(self, raw: str) -> None:
        message = json.loads(raw)
        if message["type"] == "snapshot":
            self.ready.set()
        if message["type"] not in ("snapshot", "update"):
            return
        for counter in message["counters"]:
            if counter["name"] == PAGE:
                self.frames.append((time.monotonic(), counter["value"], counter["version"]))

    def first_at(self, index: int, reached: float) -> float | None:
        """When the socket first showed at least `reached` of value (index 1) or version (index 2)."""
        for at, *state in self.frames:
            if state[index - 1] >= reached:
                return at
        return None


def paced(rate: float, seconds: float, write) -> list[tuple[int, float]]:
    """Call `write()` `rate` times a second for `seconds`; each result with the time it was answered."""
    done, began, count = [], time.monotonic(), int(rate * seconds)
    for i in range(count):
        delay = began + i / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        done.append((write(), time.monotonic()))
    return done


def latencies(socket: Socket, writes: list[tuple[int, float]], index: int) -> tuple[list[float], int]:
    """Write-to-socket seconds of each write, and how many never reached the socket."""
    arrivals = [at for at, *_ in socket.frames]
    reached = [max(state[index - 1] for _, *state in socket.frames[: i + 1]) for i in range(len(arrivals))]
    out, missing = [], 0
    for value, answered in writes:
        i = bisect.bisect_left(reached, value)
        if i == len(reached):
            missing += 1
        else:
            out.append(max(arrivals[i] - answered, 0.0))
    return out, missing


def summary(values: list[float]) -> dict:
    return {
        "p50_ms": round(percentile(values, 0.5) * 1000, 1),
        "p99_ms": round(percentile(values, 0.99) * 1000, 1),
        "max_ms": round(max(values, default=0) * 1000, 1),
    }


def outside_client(local):
    """A plain boto3 client: another service that knows nothing of the app."""
    return boto3.client(
        "dynamodb",
        endpoint_url=local.endpoint_url,
        region_name=local.region,
        aws_access_key_id=local.access_key_id,
        aws_secret_access_key=local.secret_access_key,
    )


def outside_add(client, table: str) -> int:
    answer = client.update_item(
        TableName=table,
        Key={"PK": {"S": f"C#{PAGE}"}, "SK": {"S": "TOTAL"}},
        UpdateExpression="ADD #v :one",
        ExpressionAttributeNames={"#v": "value"},
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    return int(answer["Attributes"]["value"]["N"])


def own_view(session: requests.Session, base_url: str) -> int:
    """Count one view through the site; the version it wrote (from the page)."""
    response = session.get(f"{base_url}/pages/{PAGE}/", timeout=30)
    response.raise_for_status()
    return int(VERSION_IN_PAGE.search(response.text)["version"])


def wait_for_lease(store, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = store.stream_status()
        if status and status["live"]:
            return
        time.sleep(0.2)
    raise RuntimeError("no worker took the stream's lease")


def measure(args, site, store, local, socket: Socket) -> dict:
    pid = site.process.pid
    idle_began, idle_cpu = time.monotonic(), cpu_seconds(pid)
    time.sleep(2.0)
    idle_per_second = (cpu_seconds(pid) - idle_cpu) / (time.monotonic() - idle_began)
    session = requests.Session()
    own = paced(args.rate, max(args.seconds / 6, 1.0), lambda: own_view(session, site.url))
    time.sleep(1.5)
    client = outside_client(local)
    cpu_before, began = cpu_seconds(pid), time.monotonic()
    outside = paced(args.rate, args.seconds, lambda: outside_add(client, store.table))
    written_for = time.monotonic() - began
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (not socket.frames or socket.frames[-1][1] < outside[-1][0]):
        time.sleep(0.1)
    time.sleep(1.0)
    cpu_used = cpu_seconds(pid) - cpu_before - idle_per_second * (time.monotonic() - began)
    own_latency, own_missing = latencies(socket, own, 2)
    outside_latency, outside_missing = latencies(socket, outside, 1)
    shown = [value for _, value, _ in socket.frames]
    return {
        "rate_per_second": args.rate,
        "seconds": args.seconds,
        "outside_writes": len(outside),
        "outside_written_per_second": round(len(outside) / written_for, 1),
        "outside_missing": outside_missing,
        "outside": summary(outside_latency),
        "baseline_own_writes": len(own),
        "baseline_own_missing": own_missing,
        "baseline_own": summary(own_latency),
        "socket_final": shown[-1] if shown else None,
        "final_written": outside[-1][0],
        "never_went_back": shown == sorted(shown),
        "frames": len(socket.frames),
        "reader_cpu_ms_per_change": round(max(cpu_used, 0.0) * 1000 / len(outside), 3),
        "site_idle_cpu_percent": round(idle_per_second * 100, 1),
        "stream_lag_seconds_reported": store.stream_status()["lag_seconds"],
        "load_average_after": load_average(),
    }


async def run(args, site, store, local) -> dict:
    socket, stop = Socket(), asyncio.Event()
    url = site.url.replace("http://", "ws://") + "/ws/counters/"
    holder = asyncio.ensure_future(hold_open(url, site.url, socket.take, stop, asyncio.Semaphore(1)))
    try:
        await asyncio.to_thread(socket.ready.wait, 30)
        await asyncio.to_thread(wait_for_lease, store)
        return await asyncio.to_thread(measure, args, site, store, local, socket)
    finally:
        stop.set()
        await holder


def print_figures(f: dict) -> None:
    print(
        f"outside ADDs: {f['outside_writes']} at {f['outside_written_per_second']}/s; "
        f"missing on the socket: {f['outside_missing']}; write-to-socket p50 {f['outside']['p50_ms']} ms, "
        f"p99 {f['outside']['p99_ms']} ms (max {f['outside']['max_ms']} ms)"
    )
    print(
        f"baseline, the app's own views: {f['baseline_own_writes']}; p50 {f['baseline_own']['p50_ms']} ms, "
        f"p99 {f['baseline_own']['p99_ms']} ms"
    )
    print(
        f"socket ended at {f['socket_final']} (last written {f['final_written']}), never back: "
        f"{f['never_went_back']}; site CPU per outside change {f['reader_cpu_ms_per_change']} ms "
        f"(idle worker {f['site_idle_cpu_percent']}% of a core taken off)"
    )
    lag, load = f["stream_lag_seconds_reported"], f["load_average_after"]
    print(f"stream lag the reader reported: {lag} s; load average {load}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=200.0, help="outside increments per second")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the outside writer writes")
    parser.add_argument("--quick", action="store_true", help="50/s for 3 s (for tests)")
    parser.add_argument("--json", action="store_true", help="end with one line: RESULT <figures as JSON>")
    args = parser.parse_args()
    if args.quick:
        args.rate, args.seconds = 50.0, 3.0

    from counters.services.setup import store_prepare
    from counters.store import get_store
    from tests.support.processes import SiteProcess
    from tests.support.site import site_env_for

    with bench_dynamo() as local, tempfile.TemporaryDirectory() as tmp:
        store_prepare(demo=True)
        store = get_store()
        env = site_env_for(
            store, local, Path(tmp), COUNTERS_LOG_LEVEL="WARNING", COUNTERS_STREAM_READER="worker"
        )
        with SiteProcess(env=env, log_path=Path(tmp) / "site.log", quiet=True) as site:
            figures = asyncio.run(run(args, site, store, local))
    print_figures(figures)
    if args.json:
        print(RESULT_PREFIX + json.dumps(figures))


if __name__ == "__main__":
    main()
