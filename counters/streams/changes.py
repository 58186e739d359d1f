"""What other writers' changes mean for open pages: their new totals, published."""

from __future__ import annotations

from collections.abc import Callable

from counters.domain.values import CounterState
from counters.store.capabilities import StreamChange

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

    def __call__(self, changes: list[StreamChange], own: int) -> None:
        """Handle one batch's changes, in the stream's order, and the count of the app's own writes in it."""
        updates = [self._update(change) for change in changes]
        if updates:
            self._publish(updates)
            self._observe("pushed", len(updates))
        if own:
            self._observe("own", own)

    def _update(self, change: StreamChange) -> tuple:
        """(name, value, version, sequence); a hot counter's total is read, as its shards hold the rest."""
        if not change.hot:
            return (change.name, change.value, change.version, change.sequence)
        state = self._read(change.name)
        return (state.name, state.value, state.version, change.sequence)
