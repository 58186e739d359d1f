"""Conditional reset of a counter, plain or hot: one transaction over its total, shards and audit record.

The reset applies only if the counter is still at the version the caller saw (the sum over its items).
Every item is conditioned on the version read, set to 0, and its version and `epoch` bumped by one, so
the counter's version keeps growing (by 1 + shards) and no process mixes states from both sides of the
reset (see shard_view.py). The audit item `PK=C#<name>`, `SK=RESET#<time>#<id>` records who, why, and
the old value and version, in the same transaction: no reset without its record, and no record without
its reset.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

from counters.domain.values import CounterState
from counters.exceptions import Conflict, VersionConflict
from counters.store.dynamodb import schema as s
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.shard_view import item_value

RESET_SK_PREFIX = "RESET#"


def reset_update(table: str, item: dict[str, Any], now: str) -> dict[str, Any]:
    """Zero one item of the counter if its version is still the one read."""
    condition = "#version = :seen"
    values = {
        ":seen": {"N": str(as_int(item.get(s.VERSION)))},
        ":zero": {"N": "0"},
        ":one": {"N": "1"},
        ":now": {"S": now},
    }
    if item[s.SK]["S"] == s.TOTAL_SK:
        # A shard added meanwhile would escape the reset: the shard count must be the one read too.
        if s.SHARDS in item:
            condition += " AND #shards = :shards"
            values[":shards"] = item[s.SHARDS]
        else:
            condition += " AND attribute_not_exists(#shards)"
    names = {"#value": s.VALUE, "#updated": s.UPDATED_AT, "#version": s.VERSION, "#epoch": s.EPOCH}
    if "#shards" in condition:
        names["#shards"] = s.SHARDS
    return {
        "Update": {
            "TableName": table,
            "Key": {s.PK: item[s.PK], s.SK: item[s.SK]},
            "UpdateExpression": "SET #value = :zero, #updated = :now ADD #version :one, #epoch :one",
            "ConditionExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
    }


class ResetMixin:
    """`reset` for DynamoCounterStore."""

    table: str

    def current_state(self, name: str) -> tuple[CounterState, list[dict[str, Any]]]:
        """The counter's summed state and the items it was summed from."""
        from counters.store.dynamodb.backend import state_from_item

        items = self.counter_items(name)
        total = next(item for item in items if item[s.SK]["S"] == s.TOTAL_SK)
        state = dataclasses.replace(
            state_from_item(name, total),
            value=sum(item_value(item) for item in items),
            version=sum(as_int(item.get(s.VERSION)) for item in items),
        )
        return state, items

    def reset(self, name: str, *, expected_version: int, actor: str, reason: str) -> CounterState:
        """Set a counter to 0 if it is still at `expected_version`; raise VersionConflict otherwise."""
        from counters.store.dynamodb.backend import now_iso

        current, items = self.current_state(name)
        if current.version != expected_version:
            raise self._conflict(current)
        now = now_iso()
        audit = {
            s.PK: {"S": s.counter_pk(name)},
            s.SK: {"S": f"{RESET_SK_PREFIX}{now}#{uuid.uuid4().hex[:8]}"},
            "actor": {"S": actor},
            "reason": {"S": reason},
            "old_value": {"N": str(current.value)},
            "old_version": {"N": str(current.version)},
            "new_version": {"N": str(current.version + len(items))},
            s.CREATED_AT: {"S": now},
        }
        writes = [reset_update(self.table, item, now) for item in items]
        writes.append({"Put": {"TableName": self.table, "Item": audit}})
        try:
            self.transact(writes, what=f"resetting {name!r}")
        except Conflict as exc:
            raise self._conflict(self.current_state(name)[0]) from exc
        self.shards.forget(name)
        return dataclasses.replace(current, value=0, version=current.version + len(items), updated_at=now)

    @staticmethod
    def _conflict(current: CounterState) -> VersionConflict:
        return VersionConflict(
            f"{current.name} changed: it is now {current.value} at version {current.version}. "
            "Look again and confirm the reset.",
            current=current,
        )
