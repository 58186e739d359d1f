"""What one process knows of its hot counters: the newest state seen of each of their items.

A write to a shard returns that shard's state only. Rather than a Query after every hit (which would
make the hot partition hot for reads instead), the process sums the newest (value, version) it has
seen of every item of the counter: its own writes keep their shard current, a Query (on first use,
after a reset, and from the trailing refresh in counters/background/hot_settler.py) brings the
others up to date.

Why the sum is safe to show: an item's version grows by one with every write to it, so of two states
of one item the higher version is the newer one, and the summed version only grows. States from
different sides of a reset must never be added together (the reset zeroes every item at once), so every
item carries the counter's `epoch` (its number of resets): a newer epoch throws away what was known and
asks for a Query; a state from an older epoch is ignored.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from counters.domain.values import CounterState
from counters.store.dynamodb import schema
from counters.store.dynamodb.items import item_value
from counters.store.dynamodb.schema import as_bool, as_int, as_str


@dataclass
class KnownCounter:
    """The newest state this process has seen of each item (TOTAL and SHARD#k) of one hot counter."""

    shards: int
    epoch: int
    kind: str = ""
    title: str = ""
    description: str = ""
    badge_counts: bool = False
    parts: dict[str, tuple[int, int]] = field(default_factory=dict)  # SK -> (value, version)
    # SK -> bot views: a tally apart from the version (a bot view does not bump it), never reset, so
    # of two states of one item the larger is the newer.
    bots: dict[str, int] = field(default_factory=dict)
    updated_at: str | None = None
    complete: bool = False  # every item known, from a Query of this epoch

    def state(self, name: str) -> CounterState:
        """The summed total and version."""
        return CounterState(
            name=name,
            kind=self.kind,
            value=sum(value for value, _ in self.parts.values()),
            version=sum(version for _, version in self.parts.values()),
            title=self.title,
            description=self.description,
            updated_at=self.updated_at,
            bot_views=sum(self.bots.values()),
            badge_counts=self.badge_counts,
        )


class ShardView:
    """Thread-safe per-process knowledge of hot counters; a store holds one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[str, KnownCounter] = {}

    def shard_count(self, name: str) -> int:
        """How many shards `name` has, as far as this process knows (0: none, or never seen)."""
        known = self._known.get(name)
        return known.shards if known else 0

    def observe(self, name: str, item: dict[str, Any]) -> CounterState | None:
        """Merge one item's state returned by a write; the summed state, or None when a Query is needed."""
        sk = item[schema.SK]["S"]
        epoch = as_int(item.get(schema.EPOCH))
        with self._lock:
            known = self._known.get(name)
            if known is None:
                # First sight (another process converted it): remember the shards, then Query.
                self._known[name] = KnownCounter(shards=as_int(item.get(schema.SHARDS)), epoch=epoch)
                return None
            if epoch > known.epoch:
                known.epoch, known.complete = epoch, False
                return None
            if sk == schema.TOTAL_SK and as_int(item.get(schema.SHARDS)) > known.shards:
                known.shards, known.complete = as_int(item.get(schema.SHARDS)), False
            if not known.complete:
                return None
            if epoch == known.epoch:
                self._merge(known, sk, item)
            return known.state(name)

    def replace(self, name: str, items: Iterable[dict[str, Any]]) -> CounterState | None:
        """Take a Query of the counter's items as the new knowledge; None if it straddled a reset."""
        items = list(items)
        total = next((item for item in items if item[schema.SK]["S"] == schema.TOTAL_SK), None)
        if total is None:
            return None
        epochs = {as_int(item.get(schema.EPOCH)) for item in items}
        if len(epochs) > 1:
            # A Query is not isolated from a transaction: it saw some items before a reset and some after.
            return None
        known = KnownCounter(
            shards=as_int(total.get(schema.SHARDS)),
            epoch=epochs.pop(),
            kind=as_str(total.get(schema.KIND)),
            title=as_str(total.get(schema.TITLE)),
            description=as_str(total.get(schema.DESCRIPTION)),
            badge_counts=as_bool(total.get(schema.BADGE_COUNTS)),
            complete=True,
        )
        for item in items:
            self._merge(known, item[schema.SK]["S"], item)
        with self._lock:
            current = self._known.get(name)
            if current is not None and current.complete and current.epoch == known.epoch:
                # Writes of this process may have landed after the Query read their shard: keep the newer.
                for sk, (value, version) in current.parts.items():
                    if version > known.parts.get(sk, (0, -1))[1]:
                        known.parts[sk] = (value, version)
                for sk, bots in current.bots.items():
                    known.bots[sk] = max(bots, known.bots.get(sk, 0))
            if current is None or known.epoch >= current.epoch:
                self._known[name] = known
            return known.state(name)

    def forget(self, name: str) -> None:
        """Drop what is known of a counter, e.g. after it was reset here."""
        with self._lock:
            self._known.pop(name, None)

    @staticmethod
    def _merge(known: KnownCounter, sk: str, item: dict[str, Any]) -> None:
        """Keep the newer of the known and the given state of one item."""
        version = as_int(item.get(schema.VERSION))
        if version >= known.parts.get(sk, (0, -1))[1]:
            known.parts[sk] = (item_value(item), version)
        known.bots[sk] = max(as_int(item.get(schema.BOT_VIEWS)), known.bots.get(sk, 0))
        updated = as_str(item.get(schema.UPDATED_AT))
        if updated and (known.updated_at is None or updated > known.updated_at):
            known.updated_at = updated
