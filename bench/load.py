"""A bounded closed-loop load generator: C threads, each with one keep-alive connection."""

from __future__ import annotations

import http.client
import itertools
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

# Whatever the budget, no run outlasts this (seconds), so a stuck server cannot hang the suite.
HARD_TIME_LIMIT = 120.0
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@dataclass(frozen=True)
class Request:
    """One HTTP request to send."""

    method: str
    path: str
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class LoadResult:
    """What a run did: wall time, each request's latency (s), status counts, kept bodies."""

    concurrency: int
    seconds: float
    latencies: list[float]
    statuses: dict[int, int]
    errors: int = 0
    bodies: list[bytes] = field(default_factory=list)

    @property
    def ok(self) -> int:
        """Requests answered 2xx."""
        return sum(count for status, count in self.statuses.items() if 200 <= status < 300)


def run_calls(
    call: Callable[[int], int | None], *, concurrency: int, total: int, time_limit: float = 30.0
) -> LoadResult:
    """Run call(0..total-1) over `concurrency` threads, timing each; a call returns its status or None."""
    tickets = itertools.count()  # next() on a count is atomic under the GIL
    deadline = time.monotonic() + min(time_limit, HARD_TIME_LIMIT)
    lock = threading.Lock()
    result = LoadResult(concurrency, 0.0, [], {})
    start_gate = threading.Barrier(concurrency + 1)

    def worker() -> None:
        latencies: list[float] = []
        statuses: dict[int, int] = {}
        errors = 0
        start_gate.wait()
        while time.monotonic() < deadline:
            i = next(tickets)
            if i >= total:
                break
            began = time.perf_counter()
            try:
                status = call(i) or 200
            except Exception:
                errors += 1
                continue
            latencies.append(time.perf_counter() - began)
            statuses[status] = statuses.get(status, 0) + 1
        with lock:
            result.latencies.extend(latencies)
            result.errors += errors
            for status, count in statuses.items():
                result.statuses[status] = result.statuses.get(status, 0) + count

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    start_gate.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    result.seconds = time.perf_counter() - began
    return result


def run_load(
    base_url: str | Sequence[str],
    make_request: Callable[[int], Request],
    *,
    concurrency: int,
    total: int,
    time_limit: float = 30.0,
    keep_bodies: bool = False,
) -> LoadResult:
    """Send `total` requests (request i is `make_request(i)`) from `concurrency` keep-alive clients.

    Given several base URLs (workers of one site), the clients are spread over them in turn, as a
    round-robin balancer in front of the workers would spread them.
    """
    servers = [urlsplit(url) for url in ([base_url] if isinstance(base_url, str) else base_url)]
    if any(parts.hostname not in LOOPBACK for parts in servers):
        raise ValueError("The benchmark only loads loopback servers.")
    local = threading.local()
    opened: list[http.client.HTTPConnection] = []
    bodies: list[bytes] = []
    lock = threading.Lock()

    def connection() -> http.client.HTTPConnection:
        conn = getattr(local, "conn", None)
        if conn is None:
            with lock:
                parts = servers[len(opened) % len(servers)]
                conn = local.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
                opened.append(conn)
        return conn

    def call(i: int) -> int:
        req = make_request(i)
        conn = connection()
        try:
            conn.request(req.method, req.path, body=req.body, headers=req.headers)
            response = conn.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException):
            conn.close()  # reconnects on the next request
            raise
        if keep_bodies:
            bodies.append(body)
        return response.status

    result = run_calls(call, concurrency=concurrency, total=total, time_limit=time_limit)
    for conn in opened:
        conn.close()
    result.bodies = bodies
    return result
