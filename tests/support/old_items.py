"""Counters as the table held them before a start lived in the stored total: only `start` on the item."""

from __future__ import annotations

from counters.domain.clock import now_iso
from counters.domain.values import CounterDefinition
from counters.store.dynamodb import items, schema

# The app's write of then: the first write took the start in, any later one built on the value.
OLD_INCREMENT = "SET #value = if_not_exists(#value, #start) + :one ADD #version :one"


def define_as_before(store, definition: CounterDefinition) -> None:
    """Put a counter's items as a definition wrote them then: no `value`, no `start_applied`."""
    for item in items.counter_items(definition, now_iso()):
        item.pop(schema.VALUE, None)
        item.pop(schema.START_APPLIED, None)
        store.retrying.put_item(TableName=store.table, Item=item)


def old_app_view(store, name: str) -> int:
    """One view counted as the app counted it then; the new total."""
    answer = store.retrying.update_item(
        TableName=store.table,
        Key=schema.total_key(name),
        UpdateExpression=OLD_INCREMENT,
        ExpressionAttributeNames={"#value": schema.VALUE, "#start": schema.START, "#version": schema.VERSION},
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    return int(answer["Attributes"][schema.VALUE]["N"])


def total_item(store, name: str) -> dict:
    """A counter's total item as stored (strongly consistent)."""
    key = schema.total_key(name)
    return store.retrying.get_item(TableName=store.table, Key=key, ConsistentRead=True)["Item"]
