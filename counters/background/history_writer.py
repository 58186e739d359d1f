"""Record views per minute, hour and day off the request path: batched per process, flushed each second.

Minute and hour buckets are UTC spans; day buckets are the site's days (its TIME_ZONE), keyed by the
local date, so a day's views are exact in every zone, half-hour and 45-minute offsets included.

`record()` only adds to an in-memory tally (a dict update under a lock); a background thread writes
one ADD per bucket per flush (every COUNTERS_HISTORY_FLUSH_SECONDS, default 1), whatever the number
of views, so the history costs a hot counter about two writes a second per process instead of two per
view. The totals never depend on it: they are written synchronously before the response. What a
crash can lose is stated in docs/operations.md.
"""

from __future__ import annotations

import logging
import time
from zoneinfo import ZoneInfo

from counters.background.batched import BatchedAdds
from counters.domain.buckets import MINUTE, RESOLUTIONS, VIEW_DAYS
from counters.domain.clock import day_of
from counters.exceptions import StoreUnavailable
from counters.runtime import runtime
from counters.store import CounterStore

logger = logging.getLogger(__name__)

# Buckets held back while the store throttles; beyond this the oldest news is dropped, not memory.
MAX_PENDING = 20_000

BucketRef = tuple[str, str, int]  # counter, bucket key, when the bucket expires


class HistoryRecorder(BatchedAdds):
    """One store's tally of views per bucket in this process, flushed to it in the background."""

    limit = MAX_PENDING

    def __init__(
        self, store: CounterStore, *, interval: float | None = None, zone: ZoneInfo | None = None
    ) -> None:
        super().__init__(store, interval=interval, name="counters-history")
        self.zone = zone or ZoneInfo("UTC")  # whose days the day buckets are
        self._closed = False

    def record(self, *, name: str, count: int = 1, at: float | None = None) -> None:
        """Count `count` views of `name` at `at` (default: now) in its minute, hour and day buckets."""
        at = time.time() if at is None else at
        if self._closed and (successor := recorder()) is not self:
            # A request that fetched this recorder just before its store was replaced: the next one writes.
            successor.record(name=name, count=count, at=at)
            return
        day = day_of(at, self.zone)
        starts = [(each, each.start_of(at)) for each in RESOLUTIONS]
        refs = [(name, each.key(start), each.expires_at(start)) for each, start in starts]
        refs.append((name, VIEW_DAYS.key(day), VIEW_DAYS.expires_at(day)))
        with self._lock:
            for ref in refs:
                self._keep(ref, count)
        self._ticker.ensure_started()

    def pending(self) -> int:
        """Views tallied and not yet written (each view is in three buckets, counted once here)."""
        with self._lock:
            return sum(count for (_, key, _), count in self._waiting.items() if key.startswith(MINUTE.prefix))

    def tallied(self, name: str, *, first: str, last: str) -> int:
        """Views of `name` tallied and not yet written, in the buckets keyed `first` to `last`."""
        return sum(self.tallied_buckets(name, first=first, last=last).values())

    def tallied_buckets(self, name: str, *, first: str, last: str) -> dict[str, int]:
        """Views of `name` tallied and not yet written, per bucket key from `first` to `last`."""
        found: dict[str, int] = {}
        with self._lock:
            for (counter, key, _), count in self._waiting.items():
                if counter == name and first <= key <= last:
                    found[key] = found.get(key, 0) + count
        return found

    def _write(self, ref: BucketRef, count: int) -> None:
        """One ADD to the bucket."""
        name, key, expires_at = ref
        self._store.add_to_bucket(name, key, count, expires_at=expires_at)

    def _lost(self, ref: BucketRef, count: int, exc: StoreUnavailable) -> None:
        """Log views dropped because their write may have landed."""
        logger.warning("History lost %s view(s) of %s in bucket %s: %s", count, ref[0], ref[1], exc)

    def _dropped(self, ref: BucketRef, count: int) -> None:
        """Log views dropped because the backlog is full."""
        logger.warning("History backlog full; dropping %s view(s) of %s", count, ref[0])

    def close(self) -> None:
        """Write what is tallied to its store, then stop the background thread (the store is going)."""
        self._closed = True
        self._ticker.stop()
        self.flush()
        if left := self.pending():
            logger.warning("History lost %s view(s) its store could not take before it was replaced", left)


def recorder() -> HistoryRecorder:
    """This process's recorder of views per bucket."""
    return runtime().history


def record(*, name: str, count: int = 1, at: float | None = None) -> None:
    """Count views of a counter at `at` (default now) in its history (off the request's critical path)."""
    recorder().record(name=name, count=count, at=at)


def flush() -> int:
    """Write out this process's tallied history now."""
    return recorder().flush()


def pending() -> int:
    """Views this process has tallied and not yet written."""
    return recorder().pending()
