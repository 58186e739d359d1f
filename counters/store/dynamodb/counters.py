"""Counters in DynamoDB: registration, single-write increments, reads and the registry listing."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from counters.domain.clock import now_iso
from counters.domain.values import CounterDefinition, CounterState
from counters.exceptions import StoreUnavailable, UnknownCounter
from counters.store.dynamodb import items
from counters.store.dynamodb import schema as s
from counters.store.dynamodb import shards as hot
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.shard_view import ShardView
from counters.store.dynamodb.table import CONDITION_FAILED, ConditionFailed, Table, TransactionCancelled

# One UpdateItem does the whole increment; the condition keeps unknown names from creating items
# (no table spam) and keeps a view beacon from touching a vote counter. `if_not_exists` lets the
# first write start from the counter's own `start` attribute (carried-over counts) with no read.
# `shards` and `epoch` are named (and left as they are) only so UPDATED_NEW returns them: the answer
# then tells whether another process made the counter hot, or reset it, without a read; `bot_views`
# likewise, so the answer carries it.
INCREMENT_EXPRESSION = (
    "SET #value = if_not_exists(#value, #start) + {delta}, #updated = :now, "
    "#shards = if_not_exists(#shards, :zero), #epoch = if_not_exists(#epoch, :zero), "
    "#bots = if_not_exists(#bots, :zero) "
    "ADD #version :one"
)
INCREMENT_CONDITION = "attribute_exists(#pk) AND #kind = :kind"
INCREMENT_NAMES = {
    "#pk": s.PK,
    "#value": s.VALUE,
    "#start": s.START,
    "#updated": s.UPDATED_AT,
    "#version": s.VERSION,
    "#kind": s.KIND,
    "#shards": s.SHARDS,
    "#epoch": s.EPOCH,
    "#bots": s.BOT_VIEWS,
}
# A bot's view: its own tally on the same item a view would go to, under the same condition; value,
# version and updated_at stay as they are (nothing a person sees changed, so nothing is pushed).
BOT_VIEW_EXPRESSION = "ADD #bots :times"
BOT_VIEW_NAMES = {"#pk": s.PK, "#kind": s.KIND, "#bots": s.BOT_VIEWS}
INCREMENT_BY_STEP = INCREMENT_EXPRESSION.format(delta="#step")
INCREMENT_BY_DELTA = INCREMENT_EXPRESSION.format(delta=":delta")


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


def increment(
    table: Table,
    view: ShardView,
    steps: dict[str, int],
    name: str,
    *,
    kind: str,
    by: int | None,
    times: int = 1,
) -> CounterState:
    """Add `times` increments to a counter with one conditional UpdateItem; the new total and version."""
    if shards := view.shard_count(name):
        # A hot counter: add to one shard picked at random, and answer the summed total this process knows.
        key = s.shard_key(name, random.randrange(shards))
    else:
        key = s.total_key(name)
    attributes = add_to_item(table, steps, key, name=name, kind=kind, by=by, times=times)
    if shards or s.is_hot(attributes):
        # (Made hot by another process, the write to TOTAL still counts, as TOTAL is the base.)
        return hot.after_write(table, view, name, attributes)
    return items.state_from_increment(name, kind, attributes)


def add_to_item(
    table: Table,
    steps: dict[str, int],
    key: dict[str, Any],
    *,
    name: str,
    kind: str,
    by: int | None,
    times: int = 1,
    step_checked: bool = False,
) -> dict[str, Any]:
    """The increment's one conditional UpdateItem on a total or shard item; the item as written.

    `by` (default: the counter's own step) is added `times` times. Several steps at once need the step
    in the request (an update expression cannot multiply): it is read once per process (steps never
    change), and the write is conditional on it, so a step that did change is refused, not miscounted.
    """
    values: dict[str, Any] = {
        ":now": {"S": now_iso()},
        ":one": {"N": "1"},
        ":zero": {"N": "0"},
        ":kind": {"S": kind},
    }
    names = dict(INCREMENT_NAMES)
    condition = INCREMENT_CONDITION
    if by is None and times == 1:
        expression = INCREMENT_BY_STEP
        names["#step"] = s.STEP
    elif by is None:
        step = steps[name] if name in steps else step_of(table, steps, name)
        expression, condition = INCREMENT_BY_DELTA, f"{INCREMENT_CONDITION} AND #step = :step"
        names["#step"] = s.STEP
        values[":step"] = {"N": str(step)}
        values[":delta"] = {"N": str(step * times)}
    else:
        expression = INCREMENT_BY_DELTA
        values[":delta"] = {"N": str(by * times)}
    try:
        # Sent once: a resent ADD whose answer was lost would count twice.
        attributes = table.update_item(
            key,
            update=expression,
            condition=condition,
            names=names,
            values=values,
            returns="UPDATED_NEW",
            send_once=True,
        )
    except ConditionFailed as exc:
        if ":step" in values and not step_checked:
            # Refused, so nothing was written: with the step read afresh the write is safe to send again.
            steps.pop(name, None)
            return add_to_item(table, steps, key, name=name, kind=kind, by=by, times=times, step_checked=True)
        raise UnknownCounter(f"There is no {kind} counter named {name!r}.") from exc
    return {**attributes, **key}


def step_of(table: Table, steps: dict[str, int], name: str) -> int:
    """A counter's step, read from its total item (strongly consistent) and remembered."""
    item = table.get_item(s.total_key(name))
    if not item:
        raise UnknownCounter(f"There is no counter named {name!r}.")
    steps[name] = step = as_int(item.get(s.STEP), 1)
    return step


def add_bot_view(table: Table, view: ShardView, name: str, *, times: int = 1) -> CounterState:
    """Add `times` to a view counter's `bot_views` with one conditional UpdateItem; the counter's state."""
    shards = view.shard_count(name)
    key = s.shard_key(name, random.randrange(shards)) if shards else s.total_key(name)
    try:
        # Sent once, as a view is: a resent ADD whose answer was lost would count twice.
        attributes = table.update_item(
            key,
            update=BOT_VIEW_EXPRESSION,
            condition=INCREMENT_CONDITION,
            names=BOT_VIEW_NAMES,
            values={":times": {"N": str(times)}, ":kind": {"S": "views"}},
            returns="ALL_NEW",
            send_once=True,
        )
    except ConditionFailed as exc:
        raise UnknownCounter(f"There is no views counter named {name!r}.") from exc
    item = {**attributes, **key}
    if shards or s.is_hot(item):
        return hot.after_write(table, view, name, item)
    return items.state_from_item(name, item)


def get(table: Table, view: ShardView, name: str) -> CounterState:
    """Read one total item (strongly consistent); a hot counter's is summed from one Query."""
    if view.shard_count(name):
        return hot.hot_state(table, view, name)
    item = hot.total_item(table, name)
    return hot.hot_state(table, view, name) if s.is_hot(item) else items.state_from_item(name, item)


def get_many(table: Table, view: ShardView, names: Iterable[str]) -> list[CounterState]:
    """BatchGetItem in chunks of 100, retrying unprocessed keys with backoff."""
    names = list(dict.fromkeys(names))
    found: dict[str, CounterState] = {}
    for item in table.batch_get([s.total_key(name) for name in names]):
        name = items.name_from_counter_pk(item)
        found[name] = (
            hot.hot_state(table, view, name) if s.is_hot(item) else items.state_from_item(name, item)
        )
    return [found[name] for name in names if name in found]


def set_badge_counts(table: Table, view: ShardView, name: str, *, enabled: bool) -> CounterState:
    """Set the total item's `badge_counts` (only if it exists: no item for an unknown name); read it back."""
    try:
        # Setting a flag is idempotent, so the retrying client may resend it.
        table.update_item(
            s.total_key(name),
            update="SET #badge = :enabled",
            condition="attribute_exists(#pk)",
            names={"#badge": s.BADGE_COUNTS, "#pk": s.PK},
            values={":enabled": {"BOOL": enabled}},
        )
    except ConditionFailed as exc:
        raise UnknownCounter(f"There is no counter named {name!r}.") from exc
    return get(table, view, name)


def counter_names(table: Table) -> list[str]:
    """Names from the registry partition (a Query, never a Scan)."""
    return sorted(item[s.SK]["S"] for item in table.query_all(s.COUNTER_REGISTRY_PK))
