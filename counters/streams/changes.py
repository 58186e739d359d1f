"""What a batch of our own table's stream means for open pages: other writers' new totals, published."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from counters.domain.values import CounterState
from counters.streams import records

Publish = Callable[[list[tuple]], None]


class OutsideChanges:
    """Publish the totals other writers changed; the app's own writes were pushed when made."""

    def __init__(
        self,
        *,
        publish: Publish,
        read: Callable[[str], CounterState],
        observe: Callable[[str, float], None] = lambda result, value: None,
    ) -> None:
        self._publish = publish
        self._read = read
        self._observe = observe

    def __call__(self, batch: list[dict[str, Any]]) -> None:
        """Handle one batch of records, in the stream's order."""
        updates, own = [], 0
        for record in batch:
            if records.is_bookkeeping(record):
                continue
            change = records.outside_change(record)
            if change is None:
                own += 1
                continue
            updates.append(self._update(change))
        if updates:
            self._publish(updates)
            self._observe("pushed", len(updates))
        if own:
            self._observe("own", own)

    def _update(self, change: records.Change) -> tuple:
        """(name, value, version, sequence); a hot counter's total is read, as its shards hold the rest."""
        if not change.hot:
            return (change.name, change.value, change.version, change.sequence)
        state = self._read(change.name)
        return (state.name, state.value, state.version, change.sequence)
