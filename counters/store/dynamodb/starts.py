"""A counter's start inside its stored total: moved there, once, for total items defined before it was.

A counter is defined with `value = start` and `start_applied` on its total item (items.counter_items),
so every writer's `ADD value :n` builds on the start. An item defined before that holds only `start`:
the app's first write took it in (`SET value = if_not_exists(value, start) + n`), but another service's
`ADD value :n` built on 0, and from then on the app's writes built on that. Such an item, still without
`start_applied`, is in one of three states, told apart by `value` and `version` (only the app's own
writes and resets move `version`, and it never goes down):

- no `value`: nobody wrote it yet. `SET value = :start`, only while there is still no value.
- a `value` at version 0: only other writers wrote it, each building on 0. `ADD value :start`, only
  while still at version 0. An ADD commutes with theirs, so none of their adds is lost whatever the
  order, and the condition says nothing about `value`, so their ADDs never make the move fail.
- version above 0: the app wrote it, and its first write took the start in. Only marked. (Had another
  writer made `value` before the app's first write, the start was lost then; the item no longer tells,
  and such a total stays short of its start.)

Why a marker, not the item's state alone: a new item (value = start at version 0) looks just like an
old one that other writers added `start` to. Every move is one UpdateItem that sets `start_applied` and
requires it absent, so the start goes in at most once however many movers meet (two counters_init runs,
a page view that found an item awaiting its start): the losers are refused, and a refused move reads the
item as it was then (ALL_OLD) and decides again. That also makes a resend after a lost answer harmless,
so the retrying client may carry it. `version` is left alone: the stream reader then shows the moved
total on open pages as it shows any other writer's change (counters/streams/records.py).
"""

from __future__ import annotations

from typing import Any

from counters.exceptions import StoreUnavailable
from counters.store.dynamodb import schema
from counters.store.dynamodb.expressions import named, typed
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.table import ConditionFailed, Table

# Each refusal means another mover or writer changed the item's state; three states, so a few suffice.
MOVE_ATTEMPTS = 5
NOT_MOVED = "attribute_exists(#pk) AND attribute_not_exists(#applied)"
SET_START = "SET #value = :start, #applied = :true"
NOBODY_WROTE = f"{NOT_MOVED} AND attribute_not_exists(#value)"
ADD_START = "ADD #value :start SET #applied = :true"
ONLY_OTHERS_WROTE = (
    f"{NOT_MOVED} AND attribute_exists(#value) AND (attribute_not_exists(#version) OR #version = :zero)"
)
MARK = "SET #applied = :true"
APP_WROTE = f"{NOT_MOVED} AND #version > :zero"
NAMES = named(pk=schema.PK, applied=schema.START_APPLIED, value=schema.VALUE, version=schema.VERSION)


def needs_move(item: dict[str, Any] | None) -> bool:
    """Whether a counter's total item has yet to take its start in (watched ones mirror another table)."""
    return bool(item) and schema.START_APPLIED not in item and schema.WATCH_TABLE not in item


def awaits_start(item: dict[str, Any] | None) -> bool:
    """Whether only other writers wrote the item, without its start: an app write would build on that."""
    return (
        needs_move(item)
        and as_int(item.get(schema.START)) != 0
        and schema.VALUE in item
        and as_int(item.get(schema.VERSION)) == 0
    )


def move_start(table: Table, item: dict[str, Any]) -> bool:
    """Put the item's start into its value unless it is there (once, whoever else tries); whether it moved."""
    for _ in range(MOVE_ATTEMPTS):
        if not needs_move(item):
            return False
        update, condition, moves = _move(item)
        values = typed(start=item.get(schema.START, {"N": "0"}), true=True, zero=0)
        used = f"{update} {condition}"
        try:
            table.update_item(
                {schema.PK: item[schema.PK], schema.SK: item[schema.SK]},
                update=update,
                condition=condition,
                # DynamoDB refuses names and values an expression does not use.
                names={key: name for key, name in NAMES.items() if key in used},
                values={key: value for key, value in values.items() if key in used},
                old_on_failure=True,
            )
        except ConditionFailed as exc:
            item = exc.item
            continue
        return moves
    raise StoreUnavailable("A counter kept changing while its start was moved into it; run it again.")


def _move(item: dict[str, Any]) -> tuple[str, str, bool]:
    """The update for the item's state, its condition (that state), and whether it changes the total."""
    carries = as_int(item.get(schema.START)) != 0
    if schema.VALUE not in item:
        return SET_START, NOBODY_WROTE, carries
    if as_int(item.get(schema.VERSION)) == 0:
        return ADD_START, ONLY_OTHERS_WROTE, carries
    return MARK, APP_WROTE, False


def move_starts(table: Table, names: list[str]) -> int:
    """Move the start of every named counter into its total item; how many totals it changed."""
    found = table.batch_get([schema.total_key(name) for name in names])
    return sum(move_start(table, item) for item in found if needs_move(item))
