"""Hand acknowledged counter states to the live push; the request path never waits on it."""

from __future__ import annotations

from collections.abc import Iterable

from counters.store.base import CounterState

GROUP_NAME = "counters"
UPDATE_EVENT = "counter.update"


def publish(states: Iterable[CounterState]) -> None:
    """Queue new totals for every open dashboard (live push is wired in by the broadcaster)."""
    # Placeholder seam: the coalescing broadcaster replaces this body.
    del states
