"""An ADD to a counter, from the store's call to its answer: views, vote-counter adds and bot views.

A page view's whole trip reads top to bottom here: the request joins the group commit of its counter
(group_commit.py); the write that carries it picks the item (TOTAL, or a random SHARD#k of a hot
counter), builds one conditional UpdateItem with ADD, sends it once through the client that never
resends, and turns the attributes it returns into the counter's state. Never read-then-write: the new
total and version come back with the write (UPDATED_NEW).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

from counters.domain import refusals
from counters.domain.clock import now_iso
from counters.domain.values import CounterState
from counters.exceptions import UnknownCounter
from counters.metrics import metrics
from counters.store.dynamodb import hot_counters as hot
from counters.store.dynamodb import items, schema, starts
from counters.store.dynamodb.expressions import named, typed
from counters.store.dynamodb.group_commit import GroupCommit
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.shard_view import ShardView
from counters.store.dynamodb.table import ConditionFailed, Table

# One UpdateItem does the whole increment; the condition keeps unknown names from creating items
# (no table spam) and keeps a view beacon from touching a vote counter. A counter's start is in its
# `value` from its definition on (items.counter_items), so every write, ours or another service's ADD,
# builds on it; `if_not_exists(#value, #start)` only serves a total item defined before that and never
# written since, whose first write takes its start in as writes did then (starts.py).
# `shards` and `epoch` are named (and left as they are) only so UPDATED_NEW returns them: the answer
# then tells whether another process made the counter hot, or reset it, without a read; `bot_views`
# likewise, so the answer carries it.
INCREMENT_EXPRESSION = (
    "SET #value = if_not_exists(#value, #start) + {delta}, #updated = :now, "
    "#shards = if_not_exists(#shards, :zero), #epoch = if_not_exists(#epoch, :zero), "
    "#bots = if_not_exists(#bots, :zero) "
    "ADD #version :one"
)
# A watched counter is counted by its own table's writers (its total only mirrors theirs): never here.
COUNTER_CONDITION = "attribute_exists(#pk) AND #kind = :kind AND attribute_not_exists(#watch)"
# A total item from before starts lived in `value` that only other writers have written holds their adds
# without its start (starts.py): refused, and its start moved in first, since a write of ours would build
# on that value and the item could no longer tell that the start is missing. Every item defined now has
# `start_applied`; an unwritten old one takes its start through `if_not_exists` above; shards start at 0.
START_IN_VALUE = (
    "(attribute_exists(#applied) OR #start = :zero OR attribute_not_exists(#value) OR #version > :zero)"
)
INCREMENT_CONDITION = f"{COUNTER_CONDITION} AND {START_IN_VALUE}"
# Several steps at once carry the step in the request: refused if the counter's step is another.
INCREMENT_STEP_UNCHANGED = f"{INCREMENT_CONDITION} AND #step = :step"
INCREMENT_NAMES = named(
    pk=schema.PK,
    value=schema.VALUE,
    start=schema.START,
    updated=schema.UPDATED_AT,
    version=schema.VERSION,
    kind=schema.KIND,
    shards=schema.SHARDS,
    epoch=schema.EPOCH,
    bots=schema.BOT_VIEWS,
    watch=schema.WATCH_TABLE,
    applied=schema.START_APPLIED,
)
INCREMENT_STEP_NAMES = INCREMENT_NAMES | named(step=schema.STEP)
INCREMENT_BY_STEP = INCREMENT_EXPRESSION.format(delta="#step")
INCREMENT_BY_DELTA = INCREMENT_EXPRESSION.format(delta=":delta")
# A bot's view: its own tally on the same item a view would go to, under the same condition; value,
# version and updated_at stay as they are (nothing a person sees changed, so nothing is pushed).
BOT_VIEW_EXPRESSION = "ADD #bots :times"
BOT_VIEW_NAMES = named(pk=schema.PK, kind=schema.KIND, bots=schema.BOT_VIEWS, watch=schema.WATCH_TABLE)


class Target(NamedTuple):
    """The item a write goes to, and whether this process knows the counter to be hot."""

    key: dict[str, Any]
    sharded: bool


@dataclass(frozen=True)
class ItemUpdate:
    """One conditional UpdateItem: its expressions, the names and values they use, what it returns."""

    expression: str
    condition: str
    names: dict[str, str]
    values: dict[str, Any]
    returns: str

    @property
    def checks_step(self) -> bool:
        """Whether the write carries the step it assumed (and is refused if the step is another)."""
        return ":step" in self.values


class IncrementWriter:
    """A counter's group-committed ADDs (increments, bot views); resets and conversions write elsewhere."""

    def __init__(
        self,
        table: Table,
        view: ShardView,
        *,
        steps: dict[str, int] | None = None,
        batches: GroupCommit[CounterState] | None = None,
    ) -> None:
        self.table = table
        self.view = view
        # Each counter's step, read once per process when first needed (steps never change).
        self.steps: dict[str, int] = {} if steps is None else steps
        # Concurrent writes to one counter share one UpdateItem (see group_commit.py).
        self.batches: GroupCommit[CounterState] = GroupCommit() if batches is None else batches

    # ---- requests: each rides on the next write of its counter ----

    def increment(self, name: str, *, kind: str, by: int | None = None) -> CounterState:
        """Add `by` (default: the counter's step) to a counter; the new total and version."""
        write = functools.partial(self._increment, name, kind, by)
        return self.batches.submit((name, kind, by), write)

    def add_bot_view(self, name: str) -> CounterState:
        """Add one to a views counter's `bot_views`; the counter's state."""
        return self.batches.submit((name, "bot views"), functools.partial(self._add_bot_views, name))

    # ---- one write, carrying `times` requests ----

    def _increment(self, name: str, kind: str, by: int | None, times: int) -> CounterState:
        """Add `times` increments with one conditional UpdateItem; the new total and version."""
        metrics().write_batch.labels(kind).observe(times)
        target = self._target(name)
        with unknown_if_refused(refusals.no_counter(name, kind)):
            attributes = self._add(target.key, name=name, kind=kind, by=by, times=times)
        return self._state(
            name, target, attributes, functools.partial(items.state_from_increment, name, kind)
        )

    def _add_bot_views(self, name: str, times: int) -> CounterState:
        """Add `times` to a views counter's `bot_views` with one conditional UpdateItem; its state."""
        target = self._target(name)
        with unknown_if_refused(refusals.no_counter(name, "views")):
            attributes = self._send(target.key, bot_views_update(times))
        return self._state(name, target, attributes, functools.partial(items.state_from_item, name))

    def _target(self, name: str) -> Target:
        """TOTAL, or for a counter this process knows to be hot one of its shards picked at random."""
        if shards := self.view.shard_count(name):
            return Target(schema.shard_key(name, random.randrange(shards)), sharded=True)
        return Target(schema.total_key(name), sharded=False)

    def _add(
        self, key: dict[str, Any], *, name: str, kind: str, by: int | None, times: int
    ) -> dict[str, Any]:
        """The increment's UpdateItem; one refused for a start not yet in the item, or for a step that
        changed, is sent again, once."""
        update = self._increment_update(name, kind=kind, by=by, times=times)
        try:
            return self._send(key, update)
        except ConditionFailed as exc:
            if starts.awaits_start(exc.item):
                starts.move_start(self.table, exc.item)
            elif update.checks_step:
                self.steps.pop(name, None)
            else:
                raise
        # Refused, so nothing was written: with the start moved in or the step read afresh the write is
        # safe to send again.
        return self._send(key, self._increment_update(name, kind=kind, by=by, times=times))

    def _increment_update(self, name: str, *, kind: str, by: int | None, times: int) -> ItemUpdate:
        """Add `by` (default: the counter's step) `times` times, only to an existing counter of `kind`.

        Several steps at once need the step in the request (an update expression cannot multiply), and
        the write is conditional on it, so a step that did change is refused, not miscounted.
        """
        values = typed(now=now_iso(), one=1, zero=0, kind=kind)
        if by is None and times == 1:
            return ItemUpdate(
                INCREMENT_BY_STEP, INCREMENT_CONDITION, INCREMENT_STEP_NAMES, values, "UPDATED_NEW"
            )
        if by is None:
            step = self._step(name)
            values |= typed(step=step, delta=step * times)
            return ItemUpdate(
                INCREMENT_BY_DELTA, INCREMENT_STEP_UNCHANGED, INCREMENT_STEP_NAMES, values, "UPDATED_NEW"
            )
        values |= typed(delta=by * times)
        return ItemUpdate(INCREMENT_BY_DELTA, INCREMENT_CONDITION, INCREMENT_NAMES, values, "UPDATED_NEW")

    def _step(self, name: str) -> int:
        """A counter's step: remembered, or read from its total item (strongly consistent)."""
        if name in self.steps:
            return self.steps[name]
        item = self.table.get_item(schema.total_key(name))
        if not item:
            raise UnknownCounter(refusals.no_counter(name))
        self.steps[name] = step = as_int(item.get(schema.STEP), 1)
        return step

    def _send(self, key: dict[str, Any], update: ItemUpdate) -> dict[str, Any]:
        """Send the UpdateItem once; the attributes it returned, with the item's key."""
        # Sent once: a resent ADD whose answer was lost would count twice.
        attributes = self.table.update_item(
            key,
            update=update.expression,
            condition=update.condition,
            names=update.names,
            values=update.values,
            returns=update.returns,
            send_once=True,
            # A refusal carries the item as it was: an item awaiting its start is told from an unknown name.
            old_on_failure=True,
        )
        return {**attributes, **key}

    def _state(
        self,
        name: str,
        target: Target,
        item: dict[str, Any],
        parse: Callable[[dict[str, Any]], CounterState],
    ) -> CounterState:
        """The counter's state after the write: `parse`d from the item, or summed when the counter is hot."""
        if not (target.sharded or schema.is_hot(item)):
            return parse(item)
        # (Made hot by another process, the write to TOTAL still counts, as TOTAL is the base.)
        # Fold the written item into what is known; Query only when that is not enough.
        state = self.view.observe(name, item)
        return state if state is not None else hot.hot_state(self.table, self.view, name)


def bot_views_update(times: int) -> ItemUpdate:
    """Add `times` to `bot_views`, only on an existing views counter; the whole item comes back."""
    values = typed(times=times, kind="views")
    return ItemUpdate(BOT_VIEW_EXPRESSION, COUNTER_CONDITION, BOT_VIEW_NAMES, values, "ALL_NEW")


@contextmanager
def unknown_if_refused(message: str) -> Iterator[None]:
    """A refused condition means no such counter (of that kind): UnknownCounter."""
    try:
        yield
    except ConditionFailed as exc:
        raise UnknownCounter(message) from exc
