"""Watched counters followed through their table's stream: each new number mirrored, then published."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from counters.domain.values import CounterState
from counters.store.dynamodb import watched
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.streams import records
from counters.store.dynamodb.table import Table

Publish = Callable[[list[CounterState]], None]
# A stream whose records carry the item after the change (KEYS_ONLY does not: those tables are polled).
IMAGE_VIEWS = frozenset({"NEW_IMAGE", "NEW_AND_OLD_IMAGES"})


def has_usable_stream(client: Any, table: str) -> bool:
    """Whether another table streams its items' new images (DescribeTable: read only)."""
    description = client.describe_table(TableName=table)["Table"]
    spec = description.get("StreamSpecification") or {}
    return bool(spec.get("StreamEnabled")) and spec.get("StreamViewType") in IMAGE_VIEWS


class WatchedChanges:
    """Mirror the watched items' new numbers from one table's stream into our table, and publish them."""

    def __init__(self, table: Table, watches: Iterable[watched.Watch], *, publish: Publish) -> None:
        self._table = table
        self._by_key = {watch.key_text: watch for watch in watches}
        self._publish = publish

    def __call__(self, batch: list[dict[str, Any]]) -> None:
        """Handle one batch of the other table's records, in the stream's order."""
        states = []
        for record in batch:
            data = record.get("dynamodb", {})
            watch = self._by_key.get(watched.key_text(data.get("Keys", {})))
            if watch is None:
                continue
            value = as_int((data.get("NewImage") or {}).get(watch.attribute))
            state = watched.mirror(self._table, watch.name, value, sequence=records.sequence_of(record))
            if state is not None:
                states.append(state)
        if states:
            self._publish(states)
