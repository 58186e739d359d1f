"""Group commit: requests for the same write that meet in one process share a single store call.

While a write for a key is in flight, later requests for that key gather in the next batch; when the
write returns, the batch's first request sends one write for all of them (`write(count)`), and every
request of the batch gets that write's result, or its exception. Nothing waits for a timer: an idle
key is written at once, and the busier a key, the larger its batches. This is how databases group
log flushes; here it lets one `UpdateItem ADD n` stand for n concurrent views of a hot page.

Each request is answered only after the write that carries it returned, so an acknowledged request is
durable, and a failed or lost write fails every request it carried, as it would have failed one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

# What one write returns (for counters, the new CounterState), handed to every request it carried.
Result = TypeVar("Result")


class _Batch(Generic[Result]):
    """Requests that will share one write, and its outcome once known."""

    def __init__(self) -> None:
        self.count = 0
        self.done = threading.Event()
        self.result: Result | None = None
        self.error: BaseException | None = None

    def outcome(self) -> Result:
        """The write's result, or its exception raised again in this request's thread."""
        if self.error is not None:
            raise self.error
        return self.result  # type: ignore[return-value]


class GroupCommit(Generic[Result]):
    """One write in flight per key; requests arriving meanwhile ride together on the next one."""

    def __init__(self) -> None:
        self._turn = threading.Condition()
        self._gathering: dict[Hashable, _Batch[Result]] = {}
        self._in_flight: set[Hashable] = set()

    def submit(self, key: Hashable, write: Callable[[int], Result]) -> Result:
        """Run `write(n)` once for this request and the n-1 others gathered with it; its result."""
        with self._turn:
            batch = self._gathering.get(key)
            leads = batch is None
            if batch is None:
                batch = self._gathering[key] = _Batch()
            batch.count += 1
            if leads:
                # The batch keeps gathering until the write before it returns.
                while key in self._in_flight:
                    self._turn.wait()
                del self._gathering[key]
                self._in_flight.add(key)
        if not leads:
            batch.done.wait()
            return batch.outcome()
        try:
            batch.result = write(batch.count)
        except BaseException as error:
            batch.error = error
        finally:
            with self._turn:
                self._in_flight.discard(key)
                self._turn.notify_all()
            batch.done.set()
        return batch.outcome()
