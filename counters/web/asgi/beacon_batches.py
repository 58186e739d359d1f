"""Group commit on the event loop: site beacons of one page share one write, with one thread hop per write.

The store's own group commit (counters/store/dynamodb/group_commit.py) gathers requests that each
wait in a thread of their own. Here a beacon waits as a future on the server's event loop instead:
while a page's write is in flight, beacons of that page gather, and when it returns the next write
carries all of them (`write(name, n)` in a worker thread, as boto3 blocks). Every beacon is answered
after the write that carried it, with its result or its exception: an acknowledged view is durable
and counted once, exactly as before, without a thread and its wake-ups per request.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Generic, TypeVar

from counters.runtime.off_loop import in_thread

Result = TypeVar("Result")


class LoopBatches(Generic[Result]):
    """Used on one event loop: one write in flight per name; requests meanwhile ride on the next one."""

    def __init__(self, write: Callable[[str, int], Result], threads: Executor) -> None:
        self._write = write
        self._threads = threads
        self._gathering: dict[str, list[asyncio.Future[Result]]] = {}
        self._in_flight: set[str] = set()

    async def submit(self, name: str) -> Result:
        """Count this request in the next write of `name`; that write's result (or its exception)."""
        future = asyncio.get_running_loop().create_future()
        self._gathering.setdefault(name, []).append(future)
        if name not in self._in_flight:
            self._send(name)
        return await future

    def _send(self, name: str) -> None:
        """Start the write carrying every request gathered for `name`."""
        batch = self._gathering.pop(name)
        self._in_flight.add(name)
        write = in_thread(self._write, name, len(batch), threads=self._threads)
        write.add_done_callback(functools.partial(self._done, name, batch))

    def _done(self, name: str, batch: list[asyncio.Future[Result]], write: asyncio.Future[Result]) -> None:
        """Hand the write's outcome to each request it carried; send the next batch if one gathered."""
        self._in_flight.discard(name)
        error = write.exception() if not write.cancelled() else asyncio.CancelledError()
        for future in batch:
            if future.done():
                continue  # its request went away (the client closed)
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(write.result())
        if name in self._gathering:
            self._send(name)
