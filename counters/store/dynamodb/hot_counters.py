"""Hot counters in DynamoDB: one counter's writes spread over N shard items in its own partition.

Layout (partition `PK=C#<name>`):
- `SK=TOTAL` keeps the definition (kind, title, start, step) and stays the counter's *base*: its own
  value and version still count. Converting a counter therefore moves nothing (the count it had stays
  where it is), and a process that has not yet learnt of the conversion and still writes TOTAL is
  counted correctly; its write returns the item with `shards`, and from then on it writes shards.
- `SK=SHARD#k` (k < N), created when the counter is declared hot or converted, carries copies of
  `kind`, `step` and `start=0`, so a shard write is the very same conditional UpdateItem as a plain
  increment: a name without items, or the wrong kind, writes nothing.
- total = base + the shards' values; version = the sum of every item's version. Each item's version
  only grows, so the sum is monotonic without a single version item that every write would have to
  update (which would put the hot spot back). A reset bumps every item's version and `epoch` in one
  transaction, so the sum keeps growing across resets too.

Why the shards share the counter's partition key: the total stays one Query and the reset one
transaction. Each shard is its own item, so the per-item ceiling is lifted N-fold at once; DynamoDB
spreads a hot item collection over partitions by sort key ("split for heat", possible because the
table has no local secondary index). See docs/design.md for the limits of that.
"""

from __future__ import annotations

from typing import Any

from counters.domain import refusals
from counters.domain.clock import now_iso
from counters.domain.shards import validate_shards
from counters.domain.values import CounterState
from counters.exceptions import Conflict, InvalidInput, StoreUnavailable, UnknownCounter
from counters.store.dynamodb import items, schema
from counters.store.dynamodb.expressions import named, typed
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.shard_view import ShardView
from counters.store.dynamodb.table import (
    CONDITION_FAILED,
    TRANSACTION_CONFLICT,
    Table,
    TransactionCancelled,
)

# A Query that overlapped a reset transaction is taken again; a transaction commits in milliseconds.
STRADDLE_RETRIES = 5
# The items of a counter that make up its total: SHARD#0.. and TOTAL ("SHARD#" < "TOTAL"); the
# audit records (RESET#...) sort before and are left out.
COUNTER_ITEMS_RANGE = (schema.SHARD_SK_PREFIX, schema.TOTAL_SK)

# The value and version of TOTAL are left alone (they stay the base), so increments may go on
# during the conversion; only a concurrent conversion or reset makes it fail.
# Increments write `shards` and `epoch` as 0 when absent, so absent and 0 mean the same.
SET_SHARDS = "SET #shards = :n, #epoch = :epoch"
SHARDS_UNCHANGED = (
    "attribute_exists(#pk) AND (attribute_not_exists(#shards) OR #shards = :current) "
    "AND (attribute_not_exists(#epoch) OR #epoch = :epoch)"
)


def total_item(table: Table, name: str) -> dict[str, Any]:
    """A counter's total item (strongly consistent); UnknownCounter if it is not registered."""
    item = table.get_item(schema.total_key(name))
    if not item:
        raise UnknownCounter(refusals.no_counter(name))
    return item


def hot_state(table: Table, view: ShardView, name: str) -> CounterState:
    """The total of a hot counter: one strongly consistent Query of its items, summed."""
    state = view.replace(name, counter_items(table, name))
    if state is None:
        raise StoreUnavailable("The counter is being reset; try again shortly.")
    return state


def counter_items(table: Table, name: str) -> list[dict[str, Any]]:
    """TOTAL and every SHARD#k of a counter from one Query, all of the same reset epoch."""
    for _ in range(STRADDLE_RETRIES):
        found = table.query_all(schema.counter_pk(name), sk_range=COUNTER_ITEMS_RANGE)
        if not any(item[schema.SK]["S"] == schema.TOTAL_SK for item in found):
            raise UnknownCounter(refusals.no_counter(name))
        # A Query is not isolated from a transaction: it may have seen a reset half applied.
        if len({as_int(item.get(schema.EPOCH)) for item in found}) == 1:
            return found
    raise StoreUnavailable("The counter is being reset; try again shortly.")


def make_hot(table: Table, view: ShardView, name: str, *, shards: int) -> CounterState:
    """Convert a counter to `shards` shards (or add shards) in one transaction, keeping its count."""
    shards = validate_shards(shards)
    total = total_item(table, name)
    current = as_int(total.get(schema.SHARDS))
    if shards < current:
        raise InvalidInput(refusals.shards_only_grow(name, current))
    if shards > current:
        add_shards(table, name, total, current=current, shards=shards)
    return hot_state(table, view, name)


def add_shards(table: Table, name: str, total: dict[str, Any], *, current: int, shards: int) -> None:
    """Create shards current..shards-1 and record the count on TOTAL, unless TOTAL changed shape."""
    epoch = as_int(total.get(schema.EPOCH))
    update = table.update_entry(
        schema.total_key(name),
        update=SET_SHARDS,
        condition=SHARDS_UNCHANGED,
        names=named(pk=schema.PK, shards=schema.SHARDS, epoch=schema.EPOCH),
        values=typed(n=shards, epoch=epoch, current=current),
    )
    now = now_iso()
    kind, step = total[schema.KIND]["S"], total.get(schema.STEP, {"N": "1"})
    puts = [
        table.put_new_entry(items.shard_item(name, k, kind=kind, step=step, epoch=epoch, now=now))
        for k in range(current, shards)
    ]
    commit(table, [update, *puts], what=f"converting {name!r}")


def commit(table: Table, writes: list[dict[str, Any]], *, what: str) -> None:
    """Run one transaction on a counter's items; a refused condition or a competing one is a Conflict."""
    try:
        table.transact(writes)
    except TransactionCancelled as exc:
        if CONDITION_FAILED in exc.codes or TRANSACTION_CONFLICT in exc.codes:
            raise Conflict(f"The counter changed while {what}; look again and retry.") from exc
        raise StoreUnavailable(f"The counter store refused {what}; try again.") from exc
