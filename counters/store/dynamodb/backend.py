"""The DynamoDB counter store: single-write increments, registry listing, poll definitions."""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from counters import conf
from counters.domain.names import option_counter_name
from counters.domain.values import CounterDefinition, CounterState, PollDefinition, PollOption
from counters.exceptions import StoreUnavailable, UnknownCounter
from counters.store.base import CounterStore
from counters.store.dynamodb import schema as s
from counters.store.dynamodb.clients import build_clients, resolve_connection
from counters.store.dynamodb.history import HistoryMixin
from counters.store.dynamodb.outage import unavailable_on_outage
from counters.store.dynamodb.polls import PollAdminMixin
from counters.store.dynamodb.reset_audit import ResetAuditMixin
from counters.store.dynamodb.resets import ResetMixin
from counters.store.dynamodb.schema import as_int, as_str
from counters.store.dynamodb.shard_view import ShardView
from counters.store.dynamodb.shards import ShardedCountersMixin, declared_hot_items
from counters.store.dynamodb.votes import VotesMixin

BATCH_GET_LIMIT = 100
UNPROCESSED_RETRIES = 8

# One UpdateItem does the whole increment; the condition keeps unknown names from creating items
# (no table spam) and keeps a view beacon from touching a vote counter. `if_not_exists` lets the
# first write start from the counter's own `start` attribute (carried-over counts) with no read.
# `shards` and `epoch` are named (and left as they are) only so UPDATED_NEW returns them: the answer
# then tells whether another process made the counter hot, or reset it, without a read.
INCREMENT_EXPRESSION = (
    "SET #value = if_not_exists(#value, #start) + {delta}, #updated = :now, "
    "#shards = if_not_exists(#shards, :zero), #epoch = if_not_exists(#epoch, :zero) "
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
}
INCREMENT_BY_STEP = INCREMENT_EXPRESSION.format(delta="#step")
INCREMENT_BY_DELTA = INCREMENT_EXPRESSION.format(delta=":delta")


def now_iso() -> str:
    """Current UTC time as ISO 8601, the format of `updated_at`."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def state_from_item(name: str, item: dict[str, Any]) -> CounterState:
    """Build a CounterState from a total item; a never-hit counter shows its start value."""
    return CounterState(
        name=name,
        kind=as_str(item.get(s.KIND)),
        value=as_int(item.get(s.VALUE), as_int(item.get(s.START))),
        version=as_int(item.get(s.VERSION)),
        title=as_str(item.get(s.TITLE)),
        description=as_str(item.get(s.DESCRIPTION)),
        updated_at=as_str(item.get(s.UPDATED_AT)) or None,
    )


def poll_from_item(item: dict[str, Any]) -> PollDefinition:
    """Build a PollDefinition from its registry item."""
    options = tuple(
        PollOption(id=entry["M"]["id"]["S"], label=entry["M"]["label"]["S"])
        for entry in item.get("options", {}).get("L", [])
    )
    return PollDefinition(
        id=item[s.SK]["S"],
        question=as_str(item.get("question")),
        options=options,
        closed=bool(item.get("closed", {}).get("BOOL", False)),
    )


def counter_items(definition: CounterDefinition, now: str) -> list[dict[str, Any]]:
    """A new counter's items: its total first, then its registry entry and any shards."""
    total = {
        **s.total_key(definition.name),
        s.KIND: {"S": definition.kind},
        s.TITLE: {"S": definition.title},
        s.DESCRIPTION: {"S": definition.description},
        s.START: {"N": str(definition.start)},
        s.STEP: {"N": str(definition.step)},
        s.VERSION: {"N": "0"},
        s.CREATED_AT: {"S": now},
    }
    hot_attributes, shard_items = declared_hot_items(definition, now)
    total.update(hot_attributes)
    registry = {
        **s.counter_registry_key(definition.name),
        s.KIND: {"S": definition.kind},
        s.CREATED_AT: {"S": now},
    }
    return [total, registry, *shard_items]


def option_item(option: PollOption) -> dict[str, Any]:
    """One option as stored in its poll's `options` list."""
    return {"M": {"id": {"S": option.id}, "label": {"S": option.label}}}


def poll_item(poll: PollDefinition, now: str) -> dict[str, Any]:
    """A poll's registry item, holding its question, options and closed flag."""
    return {
        **s.poll_registry_key(poll.id),
        "question": {"S": poll.question},
        "options": {"L": [option_item(option) for option in poll.options]},
        "closed": {"BOOL": poll.closed},
        s.CREATED_AT: {"S": now},
    }


def option_definition(poll: PollDefinition, option: PollOption) -> CounterDefinition:
    """The votes counter of one poll option."""
    return CounterDefinition(
        name=option_counter_name(poll.id, option.id),
        kind="votes",
        title=f"{poll.question} — {option.label}",
    )


class DynamoCounterStore(
    ShardedCountersMixin, ResetMixin, ResetAuditMixin, PollAdminMixin, HistoryMixin, VotesMixin, CounterStore
):
    """Counters in one DynamoDB table; see docs/design.md for the item layout."""

    def __init__(self, *, client: Any, retrying_client: Any | None = None, table: str) -> None:
        # `client` never resends (increments); `retrying_client` may (reads, idempotent writes).
        self.client = client
        self.retrying = retrying_client or client
        self.table = table
        self.shards = ShardView()

    @classmethod
    def from_settings(cls) -> DynamoCounterStore:
        """Clients for DYNAMODB_ENDPOINT_URL (or the embedded DynamoDB Local) and the settings' table."""
        clients = build_clients(resolve_connection())
        return cls(client=clients.single_shot, retrying_client=clients.retrying, table=conf.table_name())

    def close(self) -> None:
        """Close both clients' connection pools."""
        for client in {id(self.client): self.client, id(self.retrying): self.retrying}.values():
            client.close()

    def ensure_table(self) -> bool:
        """Create the table if missing."""
        with unavailable_on_outage():
            return s.ensure_table(self.retrying, self.table)

    def define_counter(self, definition: CounterDefinition) -> bool:
        """Write the registry entry and the total item together, once."""
        return self._put_once(counter_items(definition, now_iso()))

    def _put_once(self, items: list[dict[str, Any]]) -> bool:
        """Put all items in one transaction unless the first already exists."""
        puts = [
            {
                "Put": {
                    "TableName": self.table,
                    "Item": item,
                    "ConditionExpression": "attribute_not_exists(#pk)",
                    "ExpressionAttributeNames": {"#pk": s.PK},
                }
            }
            for item in items
        ]
        try:
            with unavailable_on_outage():
                self.retrying.transact_write_items(TransactItems=puts)
        except self.retrying.exceptions.TransactionCanceledException as exc:
            reasons = [r.get("Code") for r in exc.response.get("CancellationReasons", [])]
            if "ConditionalCheckFailed" in reasons:
                return False
            raise StoreUnavailable("The counter store refused the registration; try again.") from exc
        return True

    def increment(self, name: str, *, kind: str, by: int | None = None) -> CounterState:
        """Add to a counter with one conditional UpdateItem and return the new total and version."""
        if shards := self.shard_count(name):
            return self.increment_shard(name, kind=kind, by=by, shards=shards)
        attributes = self._add_to_item(s.total_key(name), name=name, kind=kind, by=by)
        if s.is_hot(attributes):
            # Made hot by another process: this write still counts (TOTAL is the base); learn the shards.
            return self.after_hot_write(name, attributes)
        return CounterState(
            name=name,
            kind=kind,
            value=as_int(attributes.get(s.VALUE)),
            version=as_int(attributes.get(s.VERSION)),
            updated_at=as_str(attributes.get(s.UPDATED_AT)) or None,
        )

    def _add_to_item(self, key: dict[str, Any], *, name: str, kind: str, by: int | None) -> dict[str, Any]:
        """The increment's one conditional UpdateItem on a total or shard item; the item as written."""
        values: dict[str, Any] = {
            ":now": {"S": now_iso()},
            ":one": {"N": "1"},
            ":zero": {"N": "0"},
            ":kind": {"S": kind},
        }
        names = dict(INCREMENT_NAMES)
        if by is None:
            expression = INCREMENT_BY_STEP
            names["#step"] = s.STEP
        else:
            expression = INCREMENT_BY_DELTA
            values[":delta"] = {"N": str(by)}
        try:
            with unavailable_on_outage(write=True):
                response = self.client.update_item(
                    TableName=self.table,
                    Key=key,
                    UpdateExpression=expression,
                    ConditionExpression=INCREMENT_CONDITION,
                    ExpressionAttributeNames=names,
                    ExpressionAttributeValues=values,
                    ReturnValues="UPDATED_NEW",
                )
        except self.client.exceptions.ConditionalCheckFailedException as exc:
            raise UnknownCounter(f"There is no {kind} counter named {name!r}.") from exc
        return {**response["Attributes"], **key}

    def get(self, name: str) -> CounterState:
        """Read one total item (strongly consistent); a hot counter's is summed from one Query."""
        if self.shard_count(name):
            return self.hot_state(name)
        item = self.total_item(name)
        return self.hot_state(name) if s.is_hot(item) else state_from_item(name, item)

    def total_item(self, name: str) -> dict[str, Any]:
        """A counter's total item (strongly consistent); UnknownCounter if it is not registered."""
        with unavailable_on_outage():
            response = self.retrying.get_item(
                TableName=self.table, Key=s.total_key(name), ConsistentRead=True
            )
        item = response.get("Item")
        if not item:
            raise UnknownCounter(f"There is no counter named {name!r}.")
        return item

    def get_many(self, names: Iterable[str]) -> list[CounterState]:
        """BatchGetItem in chunks of 100, retrying unprocessed keys with backoff."""
        names = list(dict.fromkeys(names))
        found: dict[str, CounterState] = {}
        for start in range(0, len(names), BATCH_GET_LIMIT):
            keys = [s.total_key(name) for name in names[start : start + BATCH_GET_LIMIT]]
            for item in self._batch_get(keys):
                name = item[s.PK]["S"].removeprefix("C#")
                found[name] = self.hot_state(name) if s.is_hot(item) else state_from_item(name, item)
        return [found[name] for name in names if name in found]

    def _batch_get(self, keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Fetch keys, retrying what DynamoDB leaves unprocessed under load."""
        items: list[dict[str, Any]] = []
        request = {self.table: {"Keys": keys, "ConsistentRead": True}}
        for attempt in range(UNPROCESSED_RETRIES):
            with unavailable_on_outage():
                response = self.retrying.batch_get_item(RequestItems=request)
            items.extend(response.get("Responses", {}).get(self.table, []))
            request = response.get("UnprocessedKeys") or {}
            if not request:
                return items
            time.sleep(min(0.05 * 2**attempt, 1.0))
        raise StoreUnavailable("The counter store is too busy to list counters; try again shortly.")

    def _query_all(
        self, pk: str, *, sk_range: tuple[str, str] | None = None, consistent: bool = True
    ) -> list[dict[str, Any]]:
        """Every item of one partition (or of a sort key range of it), following pagination."""
        items: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeNames": {"#pk": s.PK},
            "ExpressionAttributeValues": {":pk": {"S": pk}},
            "ConsistentRead": consistent,
        }
        if sk_range:
            kwargs["KeyConditionExpression"] += " AND #sk BETWEEN :first AND :last"
            kwargs["ExpressionAttributeNames"]["#sk"] = s.SK
            kwargs["ExpressionAttributeValues"].update(
                {":first": {"S": sk_range[0]}, ":last": {"S": sk_range[1]}}
            )
        while True:
            with unavailable_on_outage():
                response = self.retrying.query(**kwargs)
            items.extend(response.get("Items", []))
            if "LastEvaluatedKey" not in response:
                return items
            kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def counter_names(self) -> list[str]:
        """Names from the registry partition (a Query, never a Scan)."""
        return sorted(item[s.SK]["S"] for item in self._query_all(s.COUNTER_REGISTRY_PK))

    def define_poll(self, poll: PollDefinition) -> bool:
        """Register the poll, then a votes counter per option (each idempotent)."""
        created = self._put_once([poll_item(poll, now_iso())])
        for option in poll.options:
            self.define_counter(option_definition(poll, option))
        return created

    def get_poll(self, poll_id: str) -> PollDefinition:
        """Read a poll's registry entry."""
        with unavailable_on_outage():
            response = self.retrying.get_item(
                TableName=self.table, Key=s.poll_registry_key(poll_id), ConsistentRead=True
            )
        if "Item" not in response:
            raise UnknownCounter(f"There is no poll named {poll_id!r}.")
        return poll_from_item(response["Item"])

    def list_polls(self) -> list[PollDefinition]:
        """Every poll from its registry partition."""
        return [poll_from_item(item) for item in self._query_all(s.POLL_REGISTRY_PK)]
