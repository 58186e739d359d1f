"""Merge counter updates and pass them on at most once per interval, newest version per counter."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable, Iterable

logger = logging.getLogger(__name__)

Update = tuple[str, int, int]  # name, value, version
Pending = dict[str, tuple[int, int]]  # name -> value, version
# While sending fails, the retry interval doubles up to 2**6 times the normal one (6.4 s at 100 ms).
MAX_BACKOFF_DOUBLINGS = 6


def merge(pending: Pending, updates: Iterable[Update]) -> None:
    """Keep the highest version per counter: writes finish in any order across threads and workers."""
    for name, value, version in updates:
        known = pending.get(name)
        if known is None or version > known[1]:
            pending[name] = (value, version)


def as_counters(pending: Pending) -> list[dict]:
    """The `counters` list of an update message."""
    return [{"name": name, "value": value, "version": version} for name, (value, version) in pending.items()]


class Coalescer:
    """Used on one event loop: a quiet counter's change goes at once, then sends at least an interval apart.

    With `busy_share`, sends are also spaced so that sending takes at most that share of the time: a send
    that took 60 ms with a share of 0.25 waits at least 180 ms before the next. A send to thousands of
    sockets then comes less often (each still carries the newest totals), and the rest of the loop keeps
    its share for counting. A send that raises is retried with backoff, merged with whatever came meanwhile.
    """

    def __init__(
        self,
        send: Callable[[Pending], Awaitable[None]],
        *,
        interval: Callable[[], float],
        what: str,
        busy_share: float | None = None,
    ) -> None:
        self._send = send
        self._interval = interval
        self._rest_per_busy = (1 - busy_share) / busy_share if busy_share else 0.0
        self._what = what
        self._pending: Pending = {}
        self._task: asyncio.Task | None = None
        self._last_sent = float("-inf")
        self._rest = 0.0  # the least wait after the last send, for `busy_share`

    def add(self, updates: Iterable[Update]) -> None:
        """Merge updates (call on the loop) and make sure a sender task will pass them on."""
        merge(self._pending, updates)
        if self._task is None:
            # A fresh context: the task outlives the request or message that started it.
            self._task = asyncio.get_running_loop().create_task(self._run(), context=contextvars.Context())

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        interval = self._interval()
        failures = 0
        try:
            while self._pending:
                wait = self._last_sent + max(interval, self._rest) * 2**failures - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                pending, self._pending = self._pending, {}
                began = loop.time()
                try:
                    await self._send(pending)
                    failures = 0
                except Exception:
                    # Put the states back (newer ones that came meanwhile win) so nothing stays stale.
                    merge(self._pending, [(name, *state) for name, state in pending.items()])
                    if failures == 0:
                        logger.exception("%s of %d counter(s) failed; retrying", self._what, len(pending))
                    failures = min(failures + 1, MAX_BACKOFF_DOUBLINGS)
                # Counted from the end of a send: handing a frame to a thousand sockets takes a while,
                # and the last socket must not get the next frame sooner than the interval.
                self._last_sent = loop.time()
                self._rest = (self._last_sent - began) * self._rest_per_busy
        finally:
            if self._task is asyncio.current_task():
                self._task = None
