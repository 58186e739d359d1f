"""Counters in DynamoDB: registration, reads and the registry listing (writes: counter_writes.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from counters.domain import refusals
from counters.domain.clock import now_iso
from counters.domain.values import CounterDefinition, CounterState
from counters.exceptions import StoreUnavailable, UnknownCounter
from counters.store.dynamodb import hot_counters as hot
from counters.store.dynamodb import items, schema
from counters.store.dynamodb.expressions import named, typed
from counters.store.dynamodb.shard_view import ShardView
from counters.store.dynamodb.table import CONDITION_FAILED, ConditionFailed, Table, TransactionCancelled


def define(table: Table, definition: CounterDefinition) -> bool:
    """Write the registry entry and the total item together, once."""
    return put_once(table, items.counter_items(definition, now_iso()))


def put_once(table: Table, new_items: list[dict[str, Any]]) -> bool:
    """Put all items in one transaction unless the first already exists."""
    try:
        table.transact([table.put_new_entry(item) for item in new_items], write=False)
    except TransactionCancelled as exc:
        if CONDITION_FAILED in exc.codes:
            return False
        raise StoreUnavailable("The counter store refused the registration; try again.") from exc
    return True


def get(table: Table, view: ShardView, name: str) -> CounterState:
    """Read one total item (strongly consistent); a hot counter's is summed from one Query."""
    if view.shard_count(name):
        return hot.hot_state(table, view, name)
    item = hot.total_item(table, name)
    return hot.hot_state(table, view, name) if schema.is_hot(item) else items.state_from_item(name, item)


def get_many(table: Table, view: ShardView, names: Iterable[str]) -> list[CounterState]:
    """BatchGetItem in chunks of 100, retrying unprocessed keys with backoff."""
    names = list(dict.fromkeys(names))
    found: dict[str, CounterState] = {}
    for item in table.batch_get([schema.total_key(name) for name in names]):
        name = items.name_from_counter_pk(item)
        found[name] = (
            hot.hot_state(table, view, name) if schema.is_hot(item) else items.state_from_item(name, item)
        )
    return [found[name] for name in names if name in found]


def set_badge_counts(table: Table, view: ShardView, name: str, *, enabled: bool) -> CounterState:
    """Set the total item's `badge_counts` (only if it exists: no item for an unknown name); read it back."""
    try:
        # Setting a flag is idempotent, so the retrying client may resend it.
        table.update_item(
            schema.total_key(name),
            update="SET #badge = :enabled",
            condition="attribute_exists(#pk)",
            names=named(badge=schema.BADGE_COUNTS, pk=schema.PK),
            values=typed(enabled=enabled),
        )
    except ConditionFailed as exc:
        raise UnknownCounter(refusals.no_counter(name)) from exc
    return get(table, view, name)


def counter_names(table: Table) -> list[str]:
    """Names from the registry partition (a Query, never a Scan)."""
    return sorted(item[schema.SK]["S"] for item in table.query_all(schema.COUNTER_REGISTRY_PK))
