"""Counters in process: registration, increments, reads, listing and hot counters' shard counts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from counters.domain import refusals, values
from counters.domain.clock import now_iso
from counters.domain.shards import validate_shards
from counters.exceptions import InvalidInput, UnknownCounter
from counters.store.memory.state import MemoryState


class CounterMethods(MemoryState):
    """Counters kept in `_counters`."""

    def define_counter(self, definition: values.CounterDefinition) -> bool:
        """Register a counter unless one of that name exists."""
        if definition.shards:
            validate_shards(definition.shards)
        with self._lock:
            return self._define(definition)

    def move_starts(self) -> int:
        """Nothing to move: a counter's value holds its start from its definition on."""
        return 0

    def increment(self, name: str, *, kind: str, by: int | None = None) -> values.CounterState:
        """Add `by` (default: the step) to a registered counter of `kind`."""
        with self._lock:
            counter = self._counters.get(name)
            if counter is None or counter.definition.kind != kind:
                raise UnknownCounter(refusals.no_counter(name, kind))
            counter.add(counter.definition.step if by is None else by, now_iso())
            return counter.written()

    def get(self, name: str) -> values.CounterState:
        """One counter's state."""
        with self._lock:
            return self._counter(name).state()

    def get_many(self, names: Iterable[str]) -> list[values.CounterState]:
        """Registered counters among `names`, in the order given, each once."""
        with self._lock:
            return [self._counters[n].state() for n in dict.fromkeys(names) if n in self._counters]

    def counter_names(self) -> list[str]:
        """Every registered name, sorted."""
        with self._lock:
            return sorted(self._counters)

    def set_badge_counts(self, name: str, *, enabled: bool) -> values.CounterState:
        """Keep the choice in the counter's definition."""
        with self._lock:
            counter = self._counter(name)
            counter.definition = replace(counter.definition, badge_counts=enabled)
            return counter.state()

    def make_hot(self, name: str, *, shards: int) -> values.CounterState:
        """Record a larger shard count; the value stays as it is."""
        shards = validate_shards(shards)
        with self._lock:
            counter = self._counter(name)
            if shards < counter.shards:
                raise InvalidInput(refusals.shards_only_grow(name, counter.shards))
            counter.shards = shards
            return counter.state()

    def shard_count(self, name: str) -> int:
        """The counter's shard count (this store is the only process, so it always knows)."""
        with self._lock:
            counter = self._counters.get(name)
            return counter.shards if counter else 0
