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

import random
import uuid
from typing import Any

from counters.domain.values import CounterDefinition, CounterState
from counters.exceptions import Conflict, InvalidInput, StoreUnavailable, UnknownCounter
from counters.store.dynamodb import schema as s
from counters.store.dynamodb.outage import unavailable_on_outage
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.shard_view import ShardView

# One transaction covers the total, every shard and the audit record (DynamoDB allows 100 items).
MAX_SHARDS = 64
# A Query that overlapped a reset transaction is taken again; a transaction commits in milliseconds.
STRADDLE_RETRIES = 5
# The items of a counter that make up its total: SHARD#0.. and TOTAL ("SHARD#" < "TOTAL"); the
# audit records (RESET#...) sort before and are left out.
COUNTER_ITEMS_RANGE = (s.SHARD_SK_PREFIX, s.TOTAL_SK)


def validate_shards(shards: object) -> int:
    """Return a valid shard count or raise InvalidInput."""
    if not isinstance(shards, int) or isinstance(shards, bool) or not 1 <= shards <= MAX_SHARDS:
        raise InvalidInput(f"A hot counter has 1 to {MAX_SHARDS} shards.")
    return shards


def shard_item(name: str, index: int, *, kind: str, step: dict[str, Any], epoch: int, now: str) -> dict:
    """A new, empty shard: what a plain increment's condition and expression need, with start 0."""
    return {
        **s.shard_key(name, index),
        s.KIND: {"S": kind},
        s.START: {"N": "0"},
        s.STEP: step,
        s.VERSION: {"N": "0"},
        s.EPOCH: {"N": str(epoch)},
        s.CREATED_AT: {"S": now},
    }


def declared_hot_items(definition: CounterDefinition, now: str) -> tuple[dict[str, Any], list[dict]]:
    """For a counter declared hot: the extra attributes of its total item, and its shard items."""
    if not definition.shards:
        return {}, []
    shards = validate_shards(definition.shards)
    step = {"N": str(definition.step)}
    items = [
        shard_item(definition.name, k, kind=definition.kind, step=step, epoch=0, now=now)
        for k in range(shards)
    ]
    return {s.SHARDS: {"N": str(shards)}, s.EPOCH: {"N": "0"}}, items


def cancellation_codes(exc: Exception) -> list[str]:
    """Why DynamoDB cancelled a transaction, one code per item."""
    response = getattr(exc, "response", {}) or {}
    return [reason.get("Code", "") for reason in response.get("CancellationReasons", [])]


class ShardedCountersMixin:
    """Hot counters for DynamoCounterStore: declaration, conversion, shard writes and summed reads."""

    client: Any
    retrying: Any
    table: str
    shards: ShardView

    def shard_count(self, name: str) -> int:
        """Shards this process knows `name` to have (no I/O)."""
        return self.shards.shard_count(name)

    def increment_shard(self, name: str, *, kind: str, by: int | None, shards: int) -> CounterState:
        """Add to one shard picked at random, and answer the summed total this process knows."""
        item = self._add_to_item(s.shard_key(name, random.randrange(shards)), name=name, kind=kind, by=by)
        return self.after_hot_write(name, item)

    def after_hot_write(self, name: str, item: dict[str, Any]) -> CounterState:
        """Fold a written item into what is known; Query only when that is not enough."""
        state = self.shards.observe(name, item)
        return state if state is not None else self.hot_state(name)

    def hot_state(self, name: str) -> CounterState:
        """The total of a hot counter: one strongly consistent Query of its items, summed."""
        state = self.shards.replace(name, self.counter_items(name))
        if state is None:
            raise StoreUnavailable("The counter is being reset; try again shortly.")
        return state

    def counter_items(self, name: str) -> list[dict[str, Any]]:
        """TOTAL and every SHARD#k of a counter from one Query, all of the same reset epoch."""
        for _ in range(STRADDLE_RETRIES):
            items = self._query_all(s.counter_pk(name), sk_range=COUNTER_ITEMS_RANGE)
            if not any(item[s.SK]["S"] == s.TOTAL_SK for item in items):
                raise UnknownCounter(f"There is no counter named {name!r}.")
            # A Query is not isolated from a transaction: it may have seen a reset half applied.
            if len({as_int(item.get(s.EPOCH)) for item in items}) == 1:
                return items
        raise StoreUnavailable("The counter is being reset; try again shortly.")

    def make_hot(self, name: str, *, shards: int) -> CounterState:
        """Convert a counter to `shards` shards (or add shards) in one transaction, keeping its count."""
        shards = validate_shards(shards)
        total = self.total_item(name)
        current = as_int(total.get(s.SHARDS))
        if shards < current:
            raise InvalidInput(f"A hot counter's shards can only grow; {name!r} has {current}.")
        if shards > current:
            self._add_shards(name, total, current=current, shards=shards)
        return self.hot_state(name)

    def _add_shards(self, name: str, total: dict[str, Any], *, current: int, shards: int) -> None:
        """Create shards current..shards-1 and record the count on TOTAL, unless TOTAL changed shape."""
        from counters.store.dynamodb.backend import now_iso

        epoch = as_int(total.get(s.EPOCH))
        # The value and version of TOTAL are left alone (they stay the base), so increments may go on
        # during the conversion; only a concurrent conversion or reset makes it fail.
        # Increments write `shards` and `epoch` as 0 when absent, so absent and 0 mean the same.
        condition = [
            "attribute_exists(#pk)",
            "(attribute_not_exists(#shards) OR #shards = :current)",
            "(attribute_not_exists(#epoch) OR #epoch = :epoch)",
        ]
        values = {":n": {"N": str(shards)}, ":epoch": {"N": str(epoch)}, ":current": {"N": str(current)}}
        update = {
            "Update": {
                "TableName": self.table,
                "Key": s.total_key(name),
                "UpdateExpression": "SET #shards = :n, #epoch = :epoch",
                "ConditionExpression": " AND ".join(condition),
                "ExpressionAttributeNames": {"#pk": s.PK, "#shards": s.SHARDS, "#epoch": s.EPOCH},
                "ExpressionAttributeValues": values,
            }
        }
        now = now_iso()
        kind, step = total[s.KIND]["S"], total.get(s.STEP, {"N": "1"})
        puts = [
            {
                "Put": {
                    "TableName": self.table,
                    "Item": shard_item(name, k, kind=kind, step=step, epoch=epoch, now=now),
                    "ConditionExpression": "attribute_not_exists(#pk)",
                    "ExpressionAttributeNames": {"#pk": s.PK},
                }
            }
            for k in range(current, shards)
        ]
        self.transact([update, *puts], what=f"converting {name!r}")

    def transact(self, items: list[dict[str, Any]], *, what: str) -> None:
        """Run one transaction; a refused condition or a competing transaction is a Conflict."""
        try:
            with unavailable_on_outage(write=True):
                # The token makes an SDK resend of a transaction that did commit a no-op, not a conflict.
                self.retrying.transact_write_items(TransactItems=items, ClientRequestToken=uuid.uuid4().hex)
        except self.retrying.exceptions.TransactionCanceledException as exc:
            codes = cancellation_codes(exc)
            if "ConditionalCheckFailed" in codes or "TransactionConflict" in codes:
                raise Conflict(f"The counter changed while {what}; look again and retry.") from exc
            raise StoreUnavailable(f"The counter store refused {what}; try again.") from exc
