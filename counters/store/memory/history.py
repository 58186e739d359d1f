"""History buckets in process."""

from __future__ import annotations

from counters.store.memory.state import MemoryState


class HistoryMethods(MemoryState):
    """Buckets kept in `_buckets`."""

    def add_to_bucket(self, name: str, bucket: str, count: int, *, expires_at: int) -> None:
        """Add to a bucket's count and record when it expires."""
        with self._lock:
            buckets = self._buckets.setdefault(name, {})
            buckets[bucket] = (buckets.get(bucket, (0, 0))[0] + count, expires_at)

    def read_buckets(self, name: str, *, first: str, last: str) -> dict[str, int]:
        """Counts of the buckets from `first` to `last`, compared as their sort keys are."""
        with self._lock:
            buckets = self._buckets.get(name, {})
            return {key: buckets[key][0] for key in sorted(buckets) if first <= key <= last}
