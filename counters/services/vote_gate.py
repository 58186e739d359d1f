"""A per-process bulkhead for vote writes: at most N in flight against the store, the rest queue briefly."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from counters import conf
from counters.exceptions import StoreUnavailable
from counters.runtime import runtime


class VoteGate:
    """Up to `size` votes talk to the store at once (0: no limit); others wait up to `wait` seconds."""

    def __init__(self, *, size: int, wait: float) -> None:
        self.size = size
        self.wait = wait
        self._slots = threading.BoundedSemaphore(size) if size > 0 else None

    @classmethod
    def from_settings(cls, process: object = None) -> VoteGate:
        """COUNTERS_VOTE_CONCURRENCY slots, waited for up to COUNTERS_VOTE_QUEUE_SECONDS."""
        return cls(size=conf.vote_concurrency(), wait=conf.vote_queue_seconds())

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold a slot while a vote talks to the store; a 503 after waiting too long for one."""
        # Why: a burst of clicks otherwise queues inside the store, where each waiting call runs into the
        # client's read timeout (measured on DynamoDB Local: 23 of 200 simultaneous votes answered 503).
        # Waiting here costs no store connection and has no such timeout; after a while it is a 503.
        if self._slots is None:
            yield
            return
        if not self._slots.acquire(timeout=self.wait):
            raise StoreUnavailable(
                "Too many votes at once right now; nothing was changed. Try again.", retry_after=1
            )
        try:
            yield
        finally:
            self._slots.release()


def vote_slot():
    """Hold one of this process's vote slots while a vote talks to the store."""
    return runtime().vote_gate.slot()
