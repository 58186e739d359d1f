"""Snapshots for dashboard sockets: one store read at a time, shared by every socket that asked before it.

A read that starts after a socket joined the fan-out is as good for that socket as a read of its own,
so when a thousand pages reconnect at once (a restarted worker) the store sees a few reads, not a
thousand. A socket that asks while a read is running waits for the next one: that read starts after
its join, so no update can fall between the snapshot and the live frames.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from counters import selectors
from counters.live.audience import audience_view
from counters.live.loop import LiveLoop
from counters.runtime.off_loop import in_thread


def read_snapshot() -> list[dict]:
    """Every counter's current state, as the dashboard lists them; what the audience may see is learned
    from the polls read with it (audience.py)."""
    view = audience_view()
    generation = view.generation
    counters = [state.as_dict() for state in selectors.counter_list()]
    view.learn(selectors.poll_list(), generation, selectors.now_utc())
    return counters


class SnapshotReader:
    """Runs at most one snapshot read at a time on one event loop; each serves all who waited for it."""

    def __init__(self, live: LiveLoop, *, read: Callable[[], list[dict]] = read_snapshot) -> None:
        self._live = live
        self._read = read
        live.when_bound(self._restart)
        self._restart()

    def _restart(self) -> None:
        """Forget the reads of a loop that is gone."""
        self._next: asyncio.Future | None = None
        self._reader: asyncio.Task | None = None

    async def get(self) -> list[dict]:
        """A snapshot read that started after this call (errors are raised to every waiter)."""
        if self._next is None:
            self._next = asyncio.get_running_loop().create_future()
        waiting = self._next
        if self._reader is None or self._reader.done():
            self._reader = self._live.start(self._run())
        return await asyncio.shield(waiting)

    async def _run(self) -> None:
        while self._next is not None:
            serving, self._next = self._next, None
            try:
                # In a worker thread: the store is boto3, and the loop must keep serving sockets.
                result = await in_thread(self._read)
            except Exception as exc:
                serving.set_exception(exc)
            else:
                serving.set_result(result)
