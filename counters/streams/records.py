"""Read one stream record: a counter's total changed by a writer other than the app, or nothing to show."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from counters.store.dynamodb import schema
from counters.store.dynamodb.schema import as_int

# Items the reader itself writes (lease, checkpoints): never shown, and reading them is no progress.
BOOKKEEPING_PK_PREFIX = "STREAM"


@dataclass(frozen=True)
class Change:
    """A counter's new total from the stream, ordered at its version by the stream's sequence number."""

    name: str
    value: int
    version: int
    sequence: str
    # The counter is hot: its total is summed from its shards, so the change names it and a read tells.
    hot: bool = False


def sequence_of(record: dict[str, Any]) -> str:
    """The record's sequence number in its shard."""
    return record["dynamodb"]["SequenceNumber"]


def created_at(record: dict[str, Any]) -> float:
    """When the change was made (epoch seconds; DynamoDB rounds it to the second)."""
    when = record["dynamodb"].get("ApproximateCreationDateTime")
    if isinstance(when, datetime):
        return when.timestamp()
    return float(when or 0)


def is_bookkeeping(record: dict[str, Any]) -> bool:
    """Whether the record is of the reader's own lease or checkpoints."""
    keys = record.get("dynamodb", {}).get("Keys", {})
    return keys.get(schema.PK, {}).get("S", "").startswith(BOOKKEEPING_PK_PREFIX)


def outside_change(record: dict[str, Any]) -> Change | None:
    """The change if another writer moved a counter's total; None for anything else.

    The app's own writes bump `version` (and were pushed when they were made), so a change that leaves
    `version` as it was, and moves `value`, is another writer's `ADD value :n` (or SET).
    """
    data = record.get("dynamodb", {})
    new, old = data.get("NewImage"), data.get("OldImage")
    if record.get("eventName") != "MODIFY" or not new or not old:
        return None
    if new.get(schema.SK, {}).get("S") != schema.TOTAL_SK:
        return None
    pk = new.get(schema.PK, {}).get("S", "")
    if not pk.startswith(schema.COUNTER_PK_PREFIX):
        return None
    version = as_int(new.get(schema.VERSION))
    if version != as_int(old.get(schema.VERSION)) or new.get(schema.VALUE) == old.get(schema.VALUE):
        return None
    return Change(
        name=pk.removeprefix(schema.COUNTER_PK_PREFIX),
        value=as_int(new.get(schema.VALUE)),
        version=version,
        sequence=sequence_of(record),
        hot=schema.is_hot(new),
    )
