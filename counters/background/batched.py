"""Counts tallied in memory per reference and written with one ADD each per flush, in the background."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Hashable

from counters import conf
from counters.exceptions import StoreUnavailable
from counters.runtime.ticker import Ticker
from counters.store import CounterStore


class BatchedAdds(ABC):
    """A store's tallies in this process: kept under a lock, flushed by a ticker, bounded in size."""

    limit = 20_000  # references held back at most; past this, new ones are dropped rather than memory grown

    def __init__(self, store: CounterStore, *, interval: float | None, name: str) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._flushing = threading.Lock()
        self._waiting: dict[Hashable, int] = {}
        self._ticker = Ticker(
            self.flush, interval=interval or conf.history_flush_seconds, name=name, at_exit=True
        )

    @abstractmethod
    def _write(self, ref: Hashable, count: int) -> None:
        """One ADD of `count` to the store for `ref`."""

    @abstractmethod
    def _lost(self, ref: Hashable, count: int, exc: StoreUnavailable) -> None:
        """Say that a write whose outcome is unknown was dropped."""

    @abstractmethod
    def _dropped(self, ref: Hashable, count: int) -> None:
        """Say that a count was dropped because the backlog is full."""

    def steady(self) -> threading.Lock:
        """Held (`with recorder.steady():`), no flush writes: tallies and the store read meanwhile agree."""
        return self._flushing

    def flush(self) -> int:
        """Write every waiting tally with one ADD each; return how many writes were made."""
        with self._flushing:
            with self._lock:
                batch, self._waiting = self._waiting, {}
            writes = 0
            for ref, count in batch.items():
                try:
                    self._write(ref, count)
                except StoreUnavailable as exc:
                    self._failed(ref, count, exc)
                    continue
                writes += 1
            return writes

    def _failed(self, ref: Hashable, count: int, exc: StoreUnavailable) -> None:
        """A refused write waits for the next flush; one that may have landed is dropped, not resent."""
        if not exc.refused:
            self._lost(ref, count, exc)
            return
        with self._lock:
            self._keep(ref, count)

    def _keep(self, ref: Hashable, count: int) -> None:
        """Add to a waiting tally (the caller holds the lock)."""
        if ref in self._waiting or len(self._waiting) < self.limit:
            self._waiting[ref] = self._waiting.get(ref, 0) + count
        else:
            self._dropped(ref, count)
