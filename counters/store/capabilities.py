"""Optional features a store may offer beyond the contract, declared in `CounterStore.capabilities`.

A caller asks `STREAMS in store.capabilities` before it uses one (as Channels' layers declare their
`extensions`); asking a store for a feature it lacks raises MissingCapability. The DynamoDB store offers
both, the in-process store neither: nothing else writes it, and it has no other tables.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from counters.domain.values import CounterDefinition, CounterState
from counters.exceptions import InvalidInput

# The table's change stream: other writers' changes shown live, read by one lease holder per table.
STREAMS = "streams"
# Numbers that live in another table, shown (and reset) as counters of ours.
WATCHED = "watched"


class MissingCapability(InvalidInput):
    """The store was asked for a feature it does not declare."""

    def __init__(self, store: object, capability: str) -> None:
        super().__init__(f"The counter store {type(store).__name__} does not offer {capability!r}.")
        self.capability = capability


@dataclass(frozen=True)
class StreamChange:
    """A counter's new total made by another writer, ordered at its version by the stream's sequence."""

    name: str
    value: int
    version: int
    sequence: str
    # The counter is hot: its total is summed from its shards, so the change names it and a read tells.
    hot: bool = False


# What a batch of the table's stream means: other writers' changes, and how many were the app's own.
OnChanges = Callable[[list[StreamChange], int], None]


@dataclass(frozen=True)
class StreamWiring:
    """What a process gives the store's stream readers: its name on the leases, their timing, and where
    other writers' changes and watched numbers go."""

    owner: str
    lease_seconds: float
    poll_seconds: float  # how often watched items of tables without a stream are read
    on_changes: OnChanges
    publish_states: Callable[[list[CounterState]], None]
    observe: Callable[[str, float], None] = lambda result, value: None  # metrics: lag, pushed, own


class StreamReaders(Protocol):
    """Everything a store's streams need read in one process: one `round()` at a time, then `close()`."""

    # A round that read this many records is followed at once: more are waiting.
    batch_limit: int

    def round(self) -> int:
        """Read what is due while holding the leases; how many records and items were read."""

    def close(self) -> None:
        """Give every lease up."""


@dataclass(frozen=True)
class Watch:
    """Where a watched counter's number lives: an attribute of one item of another table."""

    name: str
    table: str
    key: dict[str, Any]
    attribute: str

    @property
    def key_text(self) -> str:
        """The item's key as stored (JSON, keys sorted): also how stream records are matched to it."""
        return key_text(self.key)


def key_text(key: dict[str, Any]) -> str:
    """An item's key as one comparable string."""
    return json.dumps(key, sort_keys=True, separators=(",", ":"))


class WatchedTables(Protocol):
    """The store's watched counters: read the other table, register, list."""

    def read(self, watch: Watch) -> int:
        """The number in the other table now (0 if the item is absent); InvalidInput if it cannot be read."""

    def register(self, definition: CounterDefinition, watch: Watch, *, value: int) -> bool:
        """Register a watched counter starting from `value`; False if the name is taken."""

    def watches(self) -> list[Watch]:
        """Every watched counter."""
