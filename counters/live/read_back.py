"""Push counters a write changed without reading them back: one read per interval, off the request path.

A write whose answer does not carry its counters' new states (a vote's transaction) asks for them
here. On the server's event loop a `Coalescer` merges the keys asked for while a read is running or
the interval (COUNTERS_BROADCAST_INTERVAL) has not passed, then reads all of them at once in a worker
thread and publishes what it found. Every read starts after the writes that asked for it were
acknowledged, so the states pushed include them and the dashboards converge on the exact totals; a
failed read is retried with backoff. Without a server loop `request` says False and the caller reads
and publishes itself.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable

from counters import conf
from counters.domain.values import CounterState
from counters.live import broadcast
from counters.live.coalesce import Coalescer, Pending

# Reads the states of the counters behind some keys (e.g. poll ids); runs in a worker thread.
Read = Callable[[list[str]], Iterable[CounterState]]


class ReadBack:
    """Per process: keys whose counters must be read and published, at most one read per interval."""

    def __init__(self, read: Read) -> None:
        self._read = read
        self._lock = threading.Lock()  # request threads may meet a new server loop at once
        self._loop: asyncio.AbstractEventLoop | None = None
        self._coalescer: Coalescer | None = None

    def request(self, keys: Iterable[str]) -> bool:
        """Queue `keys` for the next read (from any thread); False if there is no server loop to do it."""
        loop = broadcast.broadcaster.loop
        if loop is None or loop.is_closed():
            return False
        with self._lock:
            if loop is not self._loop:
                self._loop = loop
                self._coalescer = Coalescer(self._send, interval=conf.broadcast_interval, what="Read-back")
            coalescer = self._coalescer
        updates = [(key, 0, 0) for key in keys]
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            coalescer.add(updates)
            return True
        try:
            loop.call_soon_threadsafe(coalescer.add, updates)
        except RuntimeError:  # the loop closed since: the caller reads and publishes itself
            return False
        return True

    async def _send(self, pending: Pending) -> None:
        """Read the counters behind every pending key in a worker thread, then publish them."""
        states = await asyncio.get_running_loop().run_in_executor(None, self._read_list, list(pending))
        broadcast.publish(states)

    def _read_list(self, keys: list[str]) -> list[CounterState]:
        return list(self._read(keys))
