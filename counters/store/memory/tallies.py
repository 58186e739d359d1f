"""Tallies per day in process (kept for the process's life)."""

from __future__ import annotations

from counters.store.memory.state import MemoryState


class TallyMethods(MemoryState):
    """Tallies kept in `_tallies`."""

    def add_to_tally(self, group: str, day: str, key: str, count: int, *, expires_at: int) -> None:
        """Add to one key of a day's tally (kept for the process's life: nothing expires here)."""
        with self._lock:
            ref = (group, day, key)
            self._tallies[ref] = self._tallies.get(ref, 0) + count

    def read_tally(self, group: str, *, first_day: str, last_day: str) -> dict[tuple[str, str], int]:
        """Counts per (day, key) of a group's days from `first_day` to `last_day`."""
        with self._lock:
            return {
                (day, key): count
                for (of, day, key), count in self._tallies.items()
                if of == group and first_day <= day <= last_day and count
            }
