"""Unique visitors and bot views in process: the day's salt, markers and counts."""

from __future__ import annotations

from collections.abc import Iterable

from counters.domain import refusals, values
from counters.domain.visitors import VisitDay
from counters.exceptions import UnknownCounter
from counters.store.memory.state import MemoryState


class VisitorMethods(MemoryState):
    """Salts, markers and bot tallies."""

    def add_bot_view(self, name: str) -> values.CounterState:
        """Add one to a view counter's bot tally; value, version and updated_at stay."""
        with self._lock:
            counter = self._counters.get(name)
            if counter is None or counter.definition.kind != "views":
                raise UnknownCounter(refusals.no_counter(name, "views"))
            counter.bot_views += 1
            return counter.state()

    def daily_salt(self, day: VisitDay, *, candidate: bytes) -> bytes:
        """The day's salt, `candidate` if it had none."""
        with self._lock:
            return self._salts.setdefault(day.key, candidate)

    def drop_salts(self, *, before: VisitDay) -> int:
        """Forget the salts of the days before `before`."""
        with self._lock:
            old = [key for key in self._salts if key < before.key]
            for key in old:
                del self._salts[key]
            return len(old)

    def record_visitor(self, name: str, visitor: str, *, day: VisitDay) -> bool:
        """Mark the visitor and count them in the day's bucket, unless marked already."""
        with self._lock:
            marker = (name, day.key, visitor)
            if marker in self._seen:
                return False
            self._seen.add(marker)
            buckets = self._buckets.setdefault(name, {})
            buckets[day.key] = (buckets.get(day.key, (0, 0))[0] + 1, day.count_expires_at)
            return True

    def visitors_on(self, names: Iterable[str], *, day: VisitDay) -> dict[str, int]:
        """The day's count of each counter that has one."""
        with self._lock:
            counts = {name: self._buckets.get(name, {}).get(day.key, (0, 0))[0] for name in names}
            return {name: count for name, count in counts.items() if count}
