"""Read one stream record: a counter's total changed by a writer other than the app, or nothing to show."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from counters.store.capabilities import StreamChange
from counters.store.dynamodb import schema


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
    """Whether the record is of the reader's own lease or checkpoints: never shown, and no progress."""
    return schema.is_stream_bookkeeping(record.get("dynamodb", {}).get("Keys", {}))


def outside_change(record: dict[str, Any]) -> StreamChange | None:
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
    version = schema.as_int(new.get(schema.VERSION))
    if version != schema.as_int(old.get(schema.VERSION)) or new.get(schema.VALUE) == old.get(schema.VALUE):
        return None
    return StreamChange(
        name=pk.removeprefix(schema.COUNTER_PK_PREFIX),
        value=schema.as_int(new.get(schema.VALUE)),
        version=version,
        sequence=sequence_of(record),
        hot=schema.is_hot(new),
    )


def changes_of(batch: list[dict[str, Any]]) -> tuple[list[StreamChange], int]:
    """Other writers' changes in a batch of our table's records, and how many were the app's own writes
    (the reader's own lease and checkpoints are neither)."""
    changes, own = [], 0
    for record in batch:
        if is_bookkeeping(record):
            continue
        change = outside_change(record)
        if change is None:
            own += 1
        else:
            changes.append(change)
    return changes, own
