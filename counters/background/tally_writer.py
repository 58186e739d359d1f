"""Record views per source and per page for each day off the request path: batched, flushed each second.

`record()` adds to an in-memory tally under a lock; a background thread writes one ADD per (group,
day, key) per flush, as the history does (history_writer.py), so a busy source costs a write a second
per process, not one per view. Each ADD is atomic, so the counts are exact whatever the number of
processes; a write the store refused is kept for the next flush, and one whose outcome is unknown is
dropped and logged (never sent twice, never counted twice).
"""

from __future__ import annotations

import logging

from counters.background.batched import BatchedAdds
from counters.domain.visitors import VisitDay
from counters.exceptions import StoreUnavailable
from counters.runtime import runtime
from counters.store import CounterStore

logger = logging.getLogger(__name__)

# Tallies held back while the store throttles; past this, new keys are dropped rather than memory grown.
MAX_WAITING = 20_000

TallyRef = tuple[str, str, str, int]  # group, day key, key, expires_at


class TallyWriter(BatchedAdds):
    """One store's tallies per day in this process, flushed to it in the background."""

    limit = MAX_WAITING

    def __init__(self, store: CounterStore, *, interval: float | None = None) -> None:
        super().__init__(store, interval=interval, name="counters-tallies")

    def record(self, day: VisitDay, tallies: list[tuple[str, str]]) -> None:
        """Count one view under each (group, key) of `tallies` on `day`."""
        with self._lock:
            for group, key in tallies:
                self._keep((group, day.key, key, day.count_expires_at), 1)
        self._ticker.ensure_started()

    def waiting(self) -> int:
        """Tallied views not yet written (summed over every group and key)."""
        with self._lock:
            return sum(self._waiting.values())

    def waiting_for(self, group: str, *, first_day: str, last_day: str) -> dict[tuple[str, str], int]:
        """This process's counts of a group not written yet, per (day, key), for reads that add them."""
        with self._lock:
            return {
                (day, key): count
                for (of, day, key, _), count in self._waiting.items()
                if of == group and first_day <= day <= last_day
            }

    def _write(self, ref: TallyRef, count: int) -> None:
        """One ADD to the tally."""
        group, day, key, expires_at = ref
        self._store.add_to_tally(group, day, key, count, expires_at=expires_at)

    def _lost(self, ref: TallyRef, count: int, exc: StoreUnavailable) -> None:
        """Log views dropped because their write may have landed."""
        logger.warning("Tally %s lost %s view(s) of %s on %s: %s", ref[0], count, ref[2], ref[1], exc)

    def _dropped(self, ref: TallyRef, count: int) -> None:
        """Log views dropped because the backlog is full."""
        logger.warning("Tally backlog full; dropping %s view(s) of %s", count, ref[2])

    def close(self) -> None:
        """Write what is waiting, then stop the background thread (its store is going)."""
        self._ticker.stop()
        self.flush()


def tally_writer() -> TallyWriter:
    """This process's tally writer."""
    return runtime().day_tallies
