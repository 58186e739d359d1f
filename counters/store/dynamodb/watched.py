"""Watched counters: a number that lives in another table, shown and reset as a counter of ours.

Registering one writes only to our table: the registry entry, a total item that mirrors the number
(with where it lives: table, key, attribute) and an entry in the `WATCHED` partition that the stream
reader lists. The other table is only read (GetItem, DescribeTable, its stream); the one write it ever
gets is a staff reset, a conditional update of that attribute in the reset's own transaction (resets.py).
The mirror moves by `mirror()`: a new value bumps our `version`, so pages order it like any write.
"""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from counters.domain.clock import now_iso
from counters.domain.values import CounterDefinition, CounterState
from counters.exceptions import InvalidInput
from counters.store.capabilities import Watch, key_text
from counters.store.dynamodb import items, schema
from counters.store.dynamodb.counters import put_once
from counters.store.dynamodb.table import ConditionFailed, Table

# Watch and key_text are the capability's (store/capabilities.py), named here for this module's users.
__all__ = [
    "DynamoWatchedTables",
    "Watch",
    "key_text",
    "mirror",
    "source_zero_entry",
    "watch_from_item",
    "watches",
]

# Stream sequence numbers are digit strings of up to 40 digits; padded, they compare as text in order.
SEQUENCE_WIDTH = 40
MIRROR_UPDATE = "SET #value = :value, #updated = :now{sequence} ADD #version :one"
MIRROR_CONDITION = "attribute_exists(#pk) AND #value <> :value"
AFTER_SEQUENCE = " AND (attribute_not_exists(#seq) OR #seq < :seq)"


class DynamoWatchedTables:
    """The WATCHED capability of the DynamoDB store: other tables only read, our table written."""

    def __init__(self, table: Table) -> None:
        self._table = table

    def read(self, watch: Watch) -> int:
        """The number in the other table now (a strongly consistent GetItem); 0 if it is absent."""
        try:
            return read_source(self._table.retrying, watch)
        except (ClientError, BotoCoreError) as exc:
            raise InvalidInput(f"Could not read that item of table {watch.table!r}: {exc}") from exc

    def register(self, definition: CounterDefinition, watch: Watch, *, value: int) -> bool:
        """Register a watched counter (our table only), starting from `value`; False if the name is taken."""
        return register(self._table, definition, watch, value=value)

    def watches(self) -> list[Watch]:
        """Every watched counter."""
        return watches(self._table)


def read_source(client: Any, watch: Watch) -> int:
    """The number in the other table now (a strongly consistent GetItem); 0 if it is absent."""
    item = client.get_item(TableName=watch.table, Key=watch.key, ConsistentRead=True).get("Item") or {}
    return schema.as_int(item.get(watch.attribute))


def register(table: Table, definition: CounterDefinition, watch: Watch, *, value: int) -> bool:
    """Register a watched counter (our table only), starting from `value`; False if the name is taken."""
    total, registry, *_ = items.counter_items(definition, now_iso())
    total |= {
        schema.VALUE: {"N": str(value)},
        schema.WATCH_TABLE: {"S": watch.table},
        schema.WATCH_KEY: {"S": watch.key_text},
        schema.WATCH_ATTRIBUTE: {"S": watch.attribute},
    }
    entry = {
        **schema.watched_key(watch.name),
        schema.WATCH_TABLE: {"S": watch.table},
        schema.WATCH_KEY: {"S": watch.key_text},
        schema.WATCH_ATTRIBUTE: {"S": watch.attribute},
    }
    return put_once(table, [total, registry, entry])


def watches(table: Table) -> list[Watch]:
    """Every watched counter (one Query on the `WATCHED` partition)."""
    found = (watch_from_item(item[schema.SK]["S"], item) for item in table.query_all(schema.WATCHED_PK))
    return [watch for watch in found if watch is not None]


def watch_from_item(name: str, item: dict[str, Any]) -> Watch | None:
    """Where the counter's number lives, from its total item or `WATCHED` entry (None: not watched)."""
    if schema.WATCH_TABLE not in item:
        return None
    return Watch(
        name=name,
        table=item[schema.WATCH_TABLE]["S"],
        key=json.loads(item[schema.WATCH_KEY]["S"]),
        attribute=item[schema.WATCH_ATTRIBUTE]["S"],
    )


def mirror(table: Table, name: str, value: int, *, sequence: str = "") -> CounterState | None:
    """Show the other table's new number: our total takes it and a new version; None if nothing changed.

    With the stream's `sequence`, an older change than the last one mirrored is refused, so a reader
    that lost its lease and wakes late cannot bring an old number back.
    """
    names = {
        "#pk": schema.PK,
        "#value": schema.VALUE,
        "#updated": schema.UPDATED_AT,
        "#version": schema.VERSION,
    }
    values = {":value": {"N": str(value)}, ":now": {"S": now_iso()}, ":one": {"N": "1"}}
    update, condition = MIRROR_UPDATE.format(sequence=""), MIRROR_CONDITION
    if sequence:
        names["#seq"] = schema.WATCH_SEQUENCE
        values[":seq"] = {"S": sequence.rjust(SEQUENCE_WIDTH, "0")}
        update, condition = MIRROR_UPDATE.format(sequence=", #seq = :seq"), condition + AFTER_SEQUENCE
    try:
        item = table.update_item(
            schema.total_key(name),
            update=update,
            condition=condition,
            names=names,
            values=values,
            returns="ALL_NEW",
        )
    except ConditionFailed:
        return None
    return items.state_from_item(name, item)


def source_zero_entry(watch: Watch, seen: int) -> dict[str, Any]:
    """The reset's write to the other table: the attribute to 0, only if it still holds what staff saw."""
    return {
        "Update": {
            "TableName": watch.table,
            "Key": watch.key,
            "UpdateExpression": "SET #attribute = :zero",
            "ConditionExpression": "#attribute = :seen",
            "ExpressionAttributeNames": {"#attribute": watch.attribute},
            "ExpressionAttributeValues": {":zero": {"N": "0"}, ":seen": {"N": str(seen)}},
        }
    }
