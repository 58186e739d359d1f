"""Counter resets in process: a zero at the version staff saw, with an audit record."""

from __future__ import annotations

from counters.domain import refusals, values
from counters.domain.clock import now_iso
from counters.exceptions import VersionConflict
from counters.store.memory.state import MemoryState


class ResetMethods(MemoryState):
    """Resets kept in `_resets`."""

    def reset(self, name: str, *, expected_version: int, actor: str, reason: str) -> values.CounterState:
        """Zero the counter if still at `expected_version` and keep an audit record."""
        with self._lock:
            counter = self._counter(name)
            current = counter.state()
            if current.version != expected_version:
                raise VersionConflict(
                    refusals.counter_version_changed(name, current.value, current.version),
                    current=current,
                )
            now = now_iso()
            # DynamoDB bumps the version of the total and of every shard item.
            counter.value, counter.version, counter.updated_at = 0, current.version + 1 + counter.shards, now
            self._resets.setdefault(name, []).append(
                values.ResetRecord(
                    name=name,
                    at=now,
                    actor=actor,
                    reason=reason,
                    old_value=current.value,
                    old_version=current.version,
                    new_version=counter.version,
                )
            )
            return counter.state()

    def reset_history(self, name: str, *, limit: int = 50) -> list[values.ResetRecord]:
        """The newest `limit` audit records, newest first."""
        with self._lock:
            return list(reversed(self._resets.get(name, [])))[:limit]
