"""A per-process bulkhead for vote writes: at most N in flight against the store, the rest queue briefly."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from counters import conf
from counters.exceptions import StoreUnavailable

_lock = threading.Lock()
_gates: dict[int, threading.BoundedSemaphore] = {}


def _gate(size: int) -> threading.BoundedSemaphore:
    with _lock:
        if size not in _gates:
            _gates[size] = threading.BoundedSemaphore(size)
        return _gates[size]


@contextmanager
def vote_slot() -> Iterator[None]:
    """Hold one of COUNTERS_VOTE_CONCURRENCY slots (0: no limit) while a vote talks to the store."""
    # Why: a burst of clicks otherwise queues inside the store, where each waiting call runs into the
    # client's read timeout (measured on DynamoDB Local: 23 of 200 simultaneous votes answered 503).
    # Waiting here costs no store connection and has no such timeout; after a while it is a 503.
    size = conf.vote_concurrency()
    if size <= 0:
        yield
        return
    gate = _gate(size)
    if not gate.acquire(timeout=conf.vote_queue_seconds()):
        raise StoreUnavailable(
            "Too many votes at once right now; nothing was changed. Try again.", retry_after=1
        )
    try:
        yield
    finally:
        gate.release()
