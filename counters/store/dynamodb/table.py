"""The table gateway: the two clients, the table's name, and every call the store makes on them.

Every call runs inside `unavailable_on_outage`, so throttling, outages and lost answers become the
project's exceptions in one place; what a caller decides on is a refused condition (ConditionFailed)
or a cancelled transaction (TransactionCancelled, with the reason of each of its items).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from botocore import xform_name
from botocore.exceptions import ClientError

from counters.exceptions import CounterError, OutcomeUnknown, StoreUnavailable
from counters.store.dynamodb import schema
from counters.store.dynamodb.direct import direct_calls
from counters.store.dynamodb.misconfigured import StoreReach
from counters.store.dynamodb.outage import error_code, unavailable_on_outage

BATCH_GET_LIMIT = 100
UNPROCESSED_RETRIES = 8

# Cancellation reasons of one transaction item.
CONDITION_FAILED = "ConditionalCheckFailed"
TRANSACTION_CONFLICT = "TransactionConflict"

NEW_ITEM = "attribute_not_exists(#pk)"
IN_PARTITION = "#pk = :pk"
SK_BETWEEN = " AND #sk BETWEEN :first AND :last"
SK_BEGINS_WITH = " AND begins_with(#sk, :prefix)"


class ConditionFailed(Exception):
    """A conditional write was refused; `item` is the item as it was, when the write asked for it."""

    def __init__(self, item: dict[str, Any] | None = None) -> None:
        super().__init__("The condition of the write was false.")
        self.item = item


class TransactionCancelled(Exception):
    """DynamoDB cancelled a transaction; `codes` holds the reason of each item, in the items' order."""

    def __init__(self, codes: list[str]) -> None:
        super().__init__(f"The transaction was cancelled: {', '.join(codes)}.")
        self.codes = codes

    def first(self, code: str) -> int | None:
        """The index of the first item cancelled for `code`, or None."""
        return self.codes.index(code) if code in self.codes else None


class TransactionInProgress(OutcomeUnknown):
    """An SDK resend of a transaction met its own first send, still running: it may yet commit.

    Votes read again and decide; any other caller answers 503 `outcome_unknown`, never a 500.
    """

    def __init__(self) -> None:
        super().__init__(
            "The counter store is still applying this change; it counts once or not at all. "
            "Reload to see the result before trying again.",
            retry_after=2,
        )


@contextmanager
def refusals(*, write: bool, reach: StoreReach | None = None) -> Iterator[None]:
    """Map outages as `unavailable_on_outage` does, and refusals to this module's exceptions."""
    try:
        with unavailable_on_outage(write=write, reach=reach):
            yield
    except ClientError as exc:
        code = error_code(exc)
        if code == "ConditionalCheckFailedException":
            raise ConditionFailed(exc.response.get("Item")) from exc
        if code == "TransactionCanceledException":
            reasons = exc.response.get("CancellationReasons", [])
            raise TransactionCancelled([reason.get("Code", "") for reason in reasons]) from exc
        if code == "TransactionInProgressException":
            raise TransactionInProgress from exc
        raise


def first_key(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The key of a transaction's first item (a Put names its whole item; the others its key)."""
    (action,) = items[0].values()
    if "Key" in action:
        return action["Key"]
    return {schema.PK: action["Item"][schema.PK], schema.SK: action["Item"][schema.SK]}


class Table:
    """One DynamoDB table and the two clients that reach it."""

    def __init__(
        self,
        *,
        single_shot: Any,
        retrying: Any,
        name: str,
        commit_barrier: bool = False,
        embedded: bool = False,
    ) -> None:
        # Why two clients (counters/store/dynamodb/clients.py): `single_shot` never resends, for writes
        # that are not idempotent (ADD); `retrying` may, for reads and idempotent or transactional writes.
        self.single_shot = single_shot
        self.retrying = retrying
        # Writes sent without botocore's per-call work (direct.py); None keeps botocore for that client.
        self.direct = direct_calls(single_shot)
        self.direct_retrying = self.direct if retrying is single_shot else direct_calls(retrying)
        self.name = name
        # DynamoDB Local answers a transaction before its SQLite COMMIT has run, so a SIGKILL can undo
        # the last one it acknowledged (docs/operations.md). A consistent read queues behind that
        # COMMIT on its one SQLite thread: answered only after the read, a transaction is on disk.
        self.commit_barrier = commit_barrier
        # Where the clients point and whether the store has answered yet: an endpoint that never has is a
        # configuration error, not an outage (misconfigured.py).
        self.reach = StoreReach.of(single_shot, table=name, embedded=embedded)

    def outages(self, *, write: bool = False) -> Any:
        """`unavailable_on_outage` for this table's calls, telling configuration errors apart."""
        return unavailable_on_outage(write=write, reach=self.reach)

    def close(self) -> None:
        """Close both clients' connection pools (once when they are the same client)."""
        for client in {id(self.single_shot): self.single_shot, id(self.retrying): self.retrying}.values():
            client.close()
        for direct in {id(self.direct): self.direct, id(self.direct_retrying): self.direct_retrying}.values():
            if direct is not None:
                direct.close()

    def ensure(self) -> bool:
        """Create the table if missing; return whether it was created."""
        with self.outages():
            return schema.ensure_table(self.retrying, self.name)

    # ---- reads (retrying, strongly consistent unless said otherwise) ----

    def get_item(self, key: dict[str, Any]) -> dict[str, Any] | None:
        """One item, or None if it does not exist."""
        with self.outages():
            return self.retrying.get_item(TableName=self.name, Key=key, ConsistentRead=True).get("Item")

    def batch_get(self, keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Every existing item of `keys`, in BatchGetItem chunks of 100 (in no particular order)."""
        items: list[dict[str, Any]] = []
        for start in range(0, len(keys), BATCH_GET_LIMIT):
            items.extend(self._batch_get_chunk(keys[start : start + BATCH_GET_LIMIT]))
        return items

    def _batch_get_chunk(self, keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Fetch keys, retrying what DynamoDB leaves unprocessed under load."""
        items: list[dict[str, Any]] = []
        request = {self.name: {"Keys": keys, "ConsistentRead": True}}
        for attempt in range(UNPROCESSED_RETRIES):
            with self.outages():
                response = self.retrying.batch_get_item(RequestItems=request)
            items.extend(response.get("Responses", {}).get(self.name, []))
            request = response.get("UnprocessedKeys") or {}
            if not request:
                return items
            time.sleep(min(0.05 * 2**attempt, 1.0))
        raise StoreUnavailable("The counter store is too busy to list counters; try again shortly.")

    def query_all(
        self,
        pk: str,
        *,
        sk_range: tuple[str, str] | None = None,
        sk_prefix: str | None = None,
        consistent: bool = True,
        newest_first: bool = False,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """Items of one partition (or of a sort key range or prefix of it), following pagination.

        With `newest_first` the items come in descending sort key order; with `limit`, at most that many.
        """
        items: list[dict[str, Any]] = []
        kwargs = self._query_request(pk, sk_range=sk_range, sk_prefix=sk_prefix, consistent=consistent)
        if newest_first:
            kwargs["ScanIndexForward"] = False
        while True:
            if limit is not None:
                kwargs["Limit"] = limit - len(items)
            with self.outages():
                response = self.retrying.query(**kwargs)
            items.extend(response.get("Items", []))
            if "LastEvaluatedKey" not in response or (limit is not None and len(items) >= limit):
                return items
            kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def _query_request(
        self, pk: str, *, sk_range: tuple[str, str] | None, sk_prefix: str | None, consistent: bool
    ) -> dict[str, Any]:
        """The Query's arguments: the partition, narrowed to a sort key range or prefix if given."""
        kwargs: dict[str, Any] = {
            "TableName": self.name,
            "KeyConditionExpression": IN_PARTITION,
            "ExpressionAttributeNames": {"#pk": schema.PK},
            "ExpressionAttributeValues": {":pk": {"S": pk}},
            "ConsistentRead": consistent,
        }
        if sk_range:
            kwargs["KeyConditionExpression"] += SK_BETWEEN
            kwargs["ExpressionAttributeValues"].update(
                {":first": {"S": sk_range[0]}, ":last": {"S": sk_range[1]}}
            )
        if sk_prefix:
            kwargs["KeyConditionExpression"] += SK_BEGINS_WITH
            kwargs["ExpressionAttributeValues"][":prefix"] = {"S": sk_prefix}
        if sk_range or sk_prefix:
            kwargs["ExpressionAttributeNames"]["#sk"] = schema.SK
        return kwargs

    # ---- writes ----

    def update_item(
        self,
        key: dict[str, Any],
        *,
        update: str,
        names: dict[str, str],
        values: dict[str, Any],
        condition: str | None = None,
        send_once: bool = False,
        write: bool = True,
        returns: str | None = None,
        old_on_failure: bool = False,
    ) -> dict[str, Any]:
        """One UpdateItem; the attributes it returns (`returns`: ReturnValues), or {}.

        `send_once` takes the client that never resends; `write` is `unavailable_on_outage`'s (a lost
        answer is OutcomeUnknown); a false `condition` raises ConditionFailed, with the item as it was
        if `old_on_failure`.
        """
        kwargs: dict[str, Any] = {
            "TableName": self.name,
            "Key": key,
            "UpdateExpression": update,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
        if condition:
            kwargs["ConditionExpression"] = condition
        if returns:
            kwargs["ReturnValues"] = returns
        if old_on_failure:
            kwargs["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        with refusals(write=write, reach=self.reach):
            response = self._write("UpdateItem", kwargs, send_once=send_once)
        return response.get("Attributes", {})

    def put_item(
        self,
        item: dict[str, Any],
        *,
        condition: str | None = None,
        names: dict[str, str] | None = None,
        values: dict[str, Any] | None = None,
    ) -> None:
        """One PutItem of a whole item (the same item again is no change, so it may be resent);
        a false `condition` raises ConditionFailed."""
        with refusals(write=True, reach=self.reach):
            self.retrying.put_item(**self._entry({"Item": item}, condition, names, values))

    def delete_item(
        self,
        key: dict[str, Any],
        *,
        condition: str | None = None,
        names: dict[str, str] | None = None,
        values: dict[str, Any] | None = None,
    ) -> None:
        """Delete one item; deleting one that is gone already is no error, so it may be resent.

        A false `condition` raises ConditionFailed.
        """
        with refusals(write=False, reach=self.reach):
            self.retrying.delete_item(**self._entry({"Key": key}, condition, names, values))

    def transact(self, items: list[dict[str, Any]], *, write: bool = True) -> None:
        """Run one TransactWriteItems; TransactionCancelled (reasons per item) if DynamoDB cancelled it.

        `write` is `unavailable_on_outage`'s: with it, a lost answer is OutcomeUnknown.
        """
        # The token makes an SDK resend of a transaction that did commit a no-op, not a conflict.
        with refusals(write=write, reach=self.reach):
            self._write(
                "TransactWriteItems", {"TransactItems": items, "ClientRequestToken": uuid.uuid4().hex}
            )
        if self.commit_barrier:
            self._await_commit(items)

    def _write(self, operation: str, params: dict[str, Any], *, send_once: bool = False) -> dict[str, Any]:
        """Send one write on the client that never resends (`send_once`) or the retrying one."""
        direct = self.direct if send_once else self.direct_retrying
        if direct is not None:
            return direct.call(operation, params)
        client = self.single_shot if send_once else self.retrying
        return getattr(client, xform_name(operation))(**params)

    def _await_commit(self, items: list[dict[str, Any]]) -> None:
        """Read one of a committed transaction's items; OutcomeUnknown if that read fails in any way."""
        try:
            with self.outages():
                self.retrying.get_item(TableName=self.name, Key=first_key(items), ConsistentRead=True)
        except (CounterError, ClientError) as exc:
            # DynamoDB took it, but may yet undo it: neither "done" nor "nothing was changed" is true.
            raise OutcomeUnknown(
                "The counter store took this write but did not confirm it was kept; it counted once or not "
                "at all. Reload to see the total before trying again.",
                retry_after=5,
            ) from exc

    # ---- transaction items ----

    def put_entry(
        self,
        item: dict[str, Any],
        *,
        condition: str | None = None,
        names: dict[str, str] | None = None,
        values: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A Put of a transaction, under `condition` if given."""
        return {"Put": self._entry({"Item": item}, condition, names, values)}

    def put_new_entry(self, item: dict[str, Any]) -> dict[str, Any]:
        """A Put of a transaction that applies only if the item does not exist yet."""
        return self.put_entry(item, condition=NEW_ITEM, names={"#pk": schema.PK})

    def update_entry(
        self,
        key: dict[str, Any],
        *,
        update: str,
        condition: str | None,
        names: dict[str, str],
        values: dict[str, Any],
    ) -> dict[str, Any]:
        """An Update of a transaction, under `condition` if given."""
        return {"Update": self._entry({"Key": key, "UpdateExpression": update}, condition, names, values)}

    def delete_entry(
        self,
        key: dict[str, Any],
        *,
        condition: str | None = None,
        names: dict[str, str] | None = None,
        values: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A Delete of a transaction, under `condition` if given."""
        return {"Delete": self._entry({"Key": key}, condition, names, values)}

    def check_entry(
        self,
        key: dict[str, Any],
        *,
        condition: str,
        names: dict[str, str],
        values: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A ConditionCheck of a transaction: the transaction applies only if `condition` holds."""
        return {"ConditionCheck": self._entry({"Key": key}, condition, names, values)}

    def _entry(
        self,
        fields: dict[str, Any],
        condition: str | None,
        names: dict[str, str] | None,
        values: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """The body of one transaction item, with only the parts it uses."""
        entry = {"TableName": self.name, **fields}
        if condition:
            entry["ConditionExpression"] = condition
        if names:
            entry["ExpressionAttributeNames"] = names
        if values:
            entry["ExpressionAttributeValues"] = values
        return entry
