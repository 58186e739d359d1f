"""Push counters a write changed without reading them back: one read per interval, off the request path.

A write whose answer does not carry its counters' new states (a vote's transaction) asks for them
here. On the live loop a throttle gathers the keys asked for while a read is running or the interval
(COUNTERS_BROADCAST_INTERVAL, from the start of the last read) has not passed, then reads all of them
at once in a worker thread and sends what it found to the group at once: the reads are already one
per interval, so the broadcaster's coalescer would only add a second wait in series. Every read starts
after the writes that asked for it were acknowledged, so the states pushed include them and the
dashboards converge on the exact totals; a failed read or send is retried with backoff (read again).
Without a live loop `request` says False and the caller reads and publishes itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from counters import conf
from counters.domain.values import CounterState
from counters.live.loop import LiveLoop
from counters.runtime.off_loop import in_thread

# Reads the states of the counters behind some keys (e.g. poll ids); runs in a worker thread.
Read = Callable[[list[str]], Iterable[CounterState]]
# Sends states to every process's relay; raises if they did not go (the read-back then tries again).
Send = Callable[[list[CounterState]], Awaitable[None]]


class ReadBack:
    """Per process: keys whose counters must be read and published, at most one read per interval."""

    def __init__(self, live: LiveLoop, *, read: Read, send: Send) -> None:
        self._live = live
        self._read = read
        self._send = send
        self._keys: set[str] = set()
        self._throttle = live.throttle(
            self._read_and_publish, interval=conf.broadcast_interval, what="Read-back"
        )

    def request(self, keys: Iterable[str]) -> bool:
        """Queue `keys` for the next read (from any thread); False if there is no live loop to do it."""
        return self._live.run_soon(self._add, list(keys))

    def _add(self, keys: list[str]) -> None:
        self._keys.update(keys)
        self._throttle.poke()

    async def _read_and_publish(self) -> None:
        """Read the counters behind every key asked for, in a worker thread, then send them."""
        keys, self._keys = self._keys, set()
        try:
            states = await in_thread(lambda: list(self._read(sorted(keys))))
            if states:
                await self._send(states)
        except Exception:
            self._keys |= keys  # read them again with the next attempt
            raise
