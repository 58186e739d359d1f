"""Settle the pushed totals of hot counters: after writes, one exact sum per counter per ~100 ms.

A write to a shard answers the sum this process knows, which may miss other processes' latest
writes. So every process that wrote to a hot counter reads its exact sum (one Query) at most once per
SETTLE_SECONDS afterwards and pushes it: the last push after the last write is always the true total,
and the read costs stay bounded however many views arrive (not one Query per view).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

from counters.domain.values import CounterState
from counters.exceptions import CounterError
from counters.runtime import runtime
from counters.runtime.ticker import Ticker
from counters.store import CounterStore

Publish = Callable[[Iterable[CounterState]], None]

logger = logging.getLogger(__name__)

SETTLE_SECONDS = 0.1


class Settler:
    """Remember hot counters written since the last round; read and push their sums in the background."""

    def __init__(self, store: CounterStore, *, publish: Publish, interval: float = SETTLE_SECONDS) -> None:
        self._store = store
        self._publish = publish
        self._lock = threading.Lock()
        self._dirty: set[str] = set()
        self._ticker = Ticker(self.settle, interval=interval, name="counters-settle")

    def written(self, *, name: str) -> None:
        """Note a write to `name`; nothing happens for a plain counter (no I/O either way)."""
        if not self._store.shard_count(name):
            return
        with self._lock:
            self._dirty.add(name)
        self._ticker.ensure_started()

    def settle(self) -> list[CounterState]:
        """Read the exact total of every counter written since the last round and push them."""
        with self._lock:
            dirty, self._dirty = self._dirty, set()
        states = []
        for name in dirty:
            try:
                states.append(self._store.get(name))
            except CounterError as exc:
                logger.warning("Could not settle the total of %s: %s", name, exc)
                with self._lock:
                    self._dirty.add(name)
        if states:
            self._publish(states)
        return states

    def close(self) -> None:
        """Push the last exact totals, then stop the background thread (the store is going)."""
        self._ticker.stop()
        self.settle()


def settler() -> Settler:
    """This process's settler of hot counters."""
    return runtime().hot_settler


def written(*, name: str) -> None:
    """Schedule a settled push of a hot counter's exact total after a write to it."""
    settler().written(name=name)


def settle() -> list[CounterState]:
    """Settle now (tests; the background thread does it every SETTLE_SECONDS)."""
    return settler().settle()
