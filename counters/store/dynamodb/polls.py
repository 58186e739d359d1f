"""Poll management for the admin: create, add an option, close or reopen, each one conditional write.

Every write says what it expects (the poll is new; the option id is new; the poll is open before a
close), so two staff members working at once get a clear refusal instead of a silent overwrite.
"""

from __future__ import annotations

import uuid
from typing import Any

from counters.domain.names import option_counter_name
from counters.domain.values import PollDefinition, PollOption
from counters.exceptions import Conflict, StoreUnavailable, UnknownCounter
from counters.store.dynamodb import schema as s
from counters.store.dynamodb.outage import unavailable_on_outage
from counters.store.dynamodb.shards import cancellation_codes

NEW_ITEM = "attribute_not_exists(#pk)"


def put_new(table: str, item: dict[str, Any]) -> dict[str, Any]:
    """A transaction Put that applies only if the item does not exist yet."""
    return {
        "Put": {
            "TableName": table,
            "Item": item,
            "ConditionExpression": NEW_ITEM,
            "ExpressionAttributeNames": {"#pk": s.PK},
        }
    }


class PollAdminMixin:
    """`create_poll`, `add_poll_option`, `set_poll_closed` for DynamoCounterStore."""

    table: str
    retrying: Any

    def create_poll(self, poll: PollDefinition) -> PollDefinition:
        """Put the poll and every option counter in one transaction, each only if new."""
        from counters.store.dynamodb.backend import counter_items, now_iso, option_definition, poll_item

        now = now_iso()
        items = [poll_item(poll, now)]
        for option in poll.options:
            items.extend(counter_items(option_definition(poll, option), now))
        failed = self._transact_new(items)
        if failed is not None:
            if failed == 0:
                raise Conflict(f"A poll named {poll.id!r} exists already.")
            taken = items[failed][s.PK]["S"].removeprefix("C#")
            raise Conflict(f"A counter named {taken!r} exists already; pick other option ids.")
        return poll

    def add_poll_option(self, poll_id: str, option: PollOption) -> PollDefinition:
        """Append an option if its id is new, with its counter, in one transaction."""
        from counters.store.dynamodb.backend import counter_items, now_iso, option_definition, option_item

        poll = self.get_poll(poll_id)
        if any(existing.id == option.id for existing in poll.options):
            raise Conflict(f"Poll {poll_id!r} already has an option {option.id!r}.")
        now = now_iso()
        # Options are only ever appended: a list of the size read is the list read, so the id is still
        # new when the update applies. The counter's own Put condition guards the id a second time.
        append = {
            "Update": {
                "TableName": self.table,
                "Key": s.poll_registry_key(poll_id),
                "UpdateExpression": "SET #options = list_append(#options, :new), #updated = :now",
                "ConditionExpression": "attribute_exists(#pk) AND size(#options) = :seen",
                "ExpressionAttributeNames": {"#pk": s.PK, "#options": "options", "#updated": s.UPDATED_AT},
                "ExpressionAttributeValues": {
                    ":new": {"L": [option_item(option)]},
                    ":now": {"S": now},
                    ":seen": {"N": str(len(poll.options))},
                },
            }
        }
        counter = [put_new(self.table, item) for item in counter_items(option_definition(poll, option), now)]
        failed = self._transact([append, *counter])
        if failed == 0:
            raise Conflict(f"Poll {poll_id!r} changed meanwhile; look again and retry.")
        if failed is not None:
            name = option_counter_name(poll_id, option.id)
            raise Conflict(f"A counter named {name!r} exists already; pick another option id.")
        return PollDefinition(
            id=poll.id, question=poll.question, options=(*poll.options, option), closed=poll.closed
        )

    def set_poll_closed(self, poll_id: str, *, closed: bool) -> PollDefinition:
        """Set the poll's `closed` flag only if it is the other way now (a poll without one is open)."""
        from counters.store.dynamodb.backend import now_iso, poll_from_item

        try:
            with unavailable_on_outage(write=True):
                response = self.retrying.update_item(
                    TableName=self.table,
                    Key=s.poll_registry_key(poll_id),
                    UpdateExpression="SET #closed = :closed, #updated = :now",
                    ConditionExpression="attribute_exists(#pk) AND NOT #closed = :closed",
                    ExpressionAttributeNames={"#pk": s.PK, "#closed": "closed", "#updated": s.UPDATED_AT},
                    ExpressionAttributeValues={":closed": {"BOOL": closed}, ":now": {"S": now_iso()}},
                    ReturnValues="ALL_NEW",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
        except self.retrying.exceptions.ConditionalCheckFailedException as exc:
            if not exc.response.get("Item"):
                raise UnknownCounter(f"There is no poll named {poll_id!r}.") from exc
            state = "closed" if closed else "open"
            raise Conflict(f"Poll {poll_id!r} is already {state}.") from exc
        return poll_from_item(response["Attributes"])

    def _transact_new(self, items: list[dict[str, Any]]) -> int | None:
        """Put every item only if new, in one transaction; the index of the first refused, or None."""
        return self._transact([put_new(self.table, item) for item in items])

    def _transact(self, writes: list[dict[str, Any]]) -> int | None:
        """Run one transaction; the index of the first write whose condition failed, or None."""
        try:
            with unavailable_on_outage(write=True):
                # The token turns an SDK resend of a committed transaction into a no-op.
                self.retrying.transact_write_items(TransactItems=writes, ClientRequestToken=uuid.uuid4().hex)
        except self.retrying.exceptions.TransactionCanceledException as exc:
            codes = cancellation_codes(exc)
            if "ConditionalCheckFailed" in codes:
                return codes.index("ConditionalCheckFailed")
            if "TransactionConflict" in codes:
                raise Conflict("The poll changed meanwhile; look again and retry.") from exc
            raise StoreUnavailable("The counter store refused the poll change; try again.") from exc
        return None
