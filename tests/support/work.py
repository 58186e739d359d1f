"""The work one request does, counted deterministically: Python calls, store round trips, Redis commands.

A request is served as a server serves it (the site's ASGI application on a loop thread of its own,
the view on the handler's thread pool, the site beacon's store calls on its own pool), and only the
threads that serve requests are counted, so a background ticker that happens to run meanwhile is not.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import redis

from tests.support.round_trips import round_trips

# Threads that serve a request: the server's loop and the pools of the ASGI handler and the site beacon.
SERVING_THREADS = ("server-loop", "request", "beacon")
LOOP_THREAD = "server-loop"


@dataclass
class Work:
    """What one request cost: Python function calls, the store operations it sent, Redis commands."""

    python_calls: int = 0
    store_calls: list[str] = field(default_factory=list)
    redis_commands: int = 0


class CallCounter:
    """A profile function counting the Python function calls that serve one request.

    On the pools' threads every call serves a request; on the loop, only the calls of the request's own
    task do (the loop also runs the live push, coalesced over many requests: not this request's work).
    """

    def __init__(self) -> None:
        self.counting = False
        self.task: asyncio.Task | None = None
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event != "call" or not self.counting:
            return
        name = threading.current_thread().name
        if name.startswith(LOOP_THREAD):
            if asyncio.current_task() is not self.task:
                return
        elif not name.startswith(SERVING_THREADS):
            return
        with self._lock:
            self.calls += 1

    @contextmanager
    def installed(self) -> Iterator[CallCounter]:
        """Profile every thread started from now on (the loop, the pools), and none after the block."""
        threading.setprofile(self)
        try:
            yield self
        finally:
            threading.setprofile(None)


class RedisCommands:
    """Commands a Redis server has processed, read over one connection of its own."""

    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url)
        first = self.processed()
        # Each reading is itself a command: what two readings in a row differ by is not the request's.
        self.reading = self.processed() - first

    def processed(self) -> int:
        """Commands processed so far."""
        return int(self.client.info("stats")["total_commands_processed"])

    def since(self, before: int) -> int:
        """Commands processed since the reading `before`, other than readings."""
        return self.processed() - before - self.reading


class RequestWork:
    """Serve requests through an ASGI application on a server loop and count the work of each."""

    def __init__(
        self,
        app: Any,
        loop: asyncio.AbstractEventLoop,
        store: Any,
        *,
        calls: CallCounter,
        redis_url: str | None,
    ) -> None:
        self.app, self.loop, self.store, self.calls = app, loop, store, calls
        self.redis = RedisCommands(redis_url) if redis_url else None

    def serve(self, method: str, path: str, *, body: bytes = b"", headers: dict[str, str] | None = None):
        """Serve one request and return (status, response headers, body, its Work)."""
        before_redis = self.redis.processed() if self.redis else 0
        with round_trips(self.store) as sent:
            self.calls.calls, self.calls.counting = 0, True
            try:
                status, answer_headers, content = asyncio.run_coroutine_threadsafe(
                    self._request(method, path, body, headers or {}), self.loop
                ).result(timeout=60)
            finally:
                self.calls.counting = False
        spent_redis = self.redis.since(before_redis) if self.redis else 0
        work = Work(
            python_calls=self.calls.calls,
            store_calls=sent.of_threads_named(SERVING_THREADS),
            redis_commands=spent_redis,
        )
        return status, answer_headers, content, work

    async def _request(self, method: str, path: str, body: bytes, headers: dict[str, str]):
        self.calls.task = asyncio.current_task()
        path, _, query = path.partition("?")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(b"host", b"testserver")]
            + [(name.lower().encode(), value.encode()) for name, value in headers.items()],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        sent_body = False
        messages: list[dict] = []

        async def receive() -> dict:
            nonlocal sent_body
            if not sent_body:
                sent_body = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # the client stays connected
            return {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            messages.append(message)

        await self.app(scope, receive, send)
        start = next(m for m in messages if m["type"] == "http.response.start")
        content = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
        headers_out = [(k.decode().lower(), v.decode()) for k, v in start["headers"]]
        return start["status"], headers_out, content
