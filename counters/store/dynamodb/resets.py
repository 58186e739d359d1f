"""Conditional reset of a counter, plain or hot: one transaction over its total, shards and audit record.

The reset applies only if the counter is still at the version the caller saw (the sum over its items).
Every item is conditioned on the version read, set to 0, and its version and `epoch` bumped by one, so
the counter's version keeps growing (by 1 + shards) and no process mixes states from both sides of the
reset (see shard_view.py). The audit item `PK=C#<name>`, `SK=RESET#<time>#<id>` records who, why, and
the old value and version, in the same transaction: no reset without its record, and no record without
its reset. `reset_history` reads those audit items back.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

from counters.domain import refusals
from counters.domain.clock import now_iso
from counters.domain.values import CounterState, ResetRecord
from counters.exceptions import Conflict, VersionConflict
from counters.store.dynamodb import items, schema
from counters.store.dynamodb.expressions import named, typed
from counters.store.dynamodb.hot_counters import commit, counter_items
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.shard_view import ShardView
from counters.store.dynamodb.table import Table
from counters.store.dynamodb.watched import source_zero_entry, watch_from_item

ZERO_ITEM = "SET #value = :zero, #updated = :now ADD #version :one, #epoch :one"
VERSION_SEEN = "#version = :seen"
SHARDS_SEEN = " AND #shards = :shards"
NEVER_SHARDED = " AND attribute_not_exists(#shards)"


def current_state(table: Table, name: str) -> tuple[CounterState, list[dict[str, Any]]]:
    """The counter's summed state and the items it was summed from."""
    found = counter_items(table, name)
    return items.summed_state(name, found), found


def reset(
    table: Table, view: ShardView, name: str, *, expected_version: int, actor: str, reason: str
) -> CounterState:
    """Set a counter to 0 if it is still at `expected_version`; raise VersionConflict otherwise."""
    current, found = current_state(table, name)
    if current.version != expected_version:
        raise version_conflict(current)
    now = now_iso()
    new_version = current.version + len(found)
    audit = items.reset_audit_item(
        current, new_version=new_version, actor=actor, reason=reason, at=now, suffix=uuid.uuid4().hex[:8]
    )
    writes = [zero_item(table, item, now) for item in found]
    writes.append(table.put_entry(audit))
    # A watched counter's number lives in another table: zeroed there too, in the same transaction, only
    # if it still holds the value staff saw (the one write that table ever gets from here).
    watch = next((w for w in (watch_from_item(name, item) for item in found) if w is not None), None)
    if watch is not None:
        writes.append(source_zero_entry(watch, current.value))
    try:
        commit(table, writes, what=f"resetting {name!r}")
    except Conflict as exc:
        raise version_conflict(current_state(table, name)[0]) from exc
    view.forget(name)
    return dataclasses.replace(current, value=0, version=new_version, updated_at=now)


def zero_item(table: Table, item: dict[str, Any], now: str) -> dict[str, Any]:
    """Zero one item of the counter if its version is still the one read."""
    condition = VERSION_SEEN
    values = typed(seen=as_int(item.get(schema.VERSION)), zero=0, one=1, now=now)
    names = named(value=schema.VALUE, updated=schema.UPDATED_AT, version=schema.VERSION, epoch=schema.EPOCH)
    if item[schema.SK]["S"] == schema.TOTAL_SK:
        # A shard added meanwhile would escape the reset: the shard count must be the one read too.
        if schema.SHARDS in item:
            condition += SHARDS_SEEN
            values |= typed(shards=item[schema.SHARDS])
        else:
            condition += NEVER_SHARDED
        names |= named(shards=schema.SHARDS)
    key = {schema.PK: item[schema.PK], schema.SK: item[schema.SK]}
    return table.update_entry(key, update=ZERO_ITEM, condition=condition, names=names, values=values)


def version_conflict(current: CounterState) -> VersionConflict:
    """The refusal of a reset that expected another version than `current`'s."""
    return VersionConflict(
        refusals.counter_version_changed(current.name, current.value, current.version),
        current=current,
    )


def reset_history(table: Table, name: str, *, limit: int) -> list[ResetRecord]:
    """The newest `limit` audit records of a counter, from one Query on its partition."""
    # The sort key starts with the ISO time, so reading the range backwards is newest first.
    found = table.query_all(
        schema.counter_pk(name), sk_prefix=schema.RESET_SK_PREFIX, newest_first=True, limit=limit
    )
    return [items.record_from_item(name, item) for item in found]
