"""Polls in DynamoDB: definitions in the registry, and the admin's writes, each one conditional.

Every admin write says what it expects (the poll is new; the option id is new; the poll is open before
a close), so two staff members working at once get a clear refusal instead of a silent overwrite.
"""

from __future__ import annotations

from typing import Any

from counters.domain.clock import now_iso
from counters.domain.names import option_counter_name
from counters.domain.polls import option_counter_definition
from counters.domain.values import PollDefinition, PollOption
from counters.exceptions import Conflict, StoreUnavailable, UnknownCounter
from counters.store.dynamodb import counters, items, schema
from counters.store.dynamodb.table import (
    CONDITION_FAILED,
    TRANSACTION_CONFLICT,
    ConditionFailed,
    Table,
    TransactionCancelled,
)

APPEND_OPTION = "SET #options = list_append(#options, :new), #updated = :now"
OPTIONS_SEEN = "attribute_exists(#pk) AND size(#options) = :seen"
SET_CLOSED = "SET #closed = :closed, #updated = :now"
NOT_YET_SO = "attribute_exists(#pk) AND NOT #closed = :closed"


# ---- definitions ----


def define_poll(table: Table, poll: PollDefinition) -> bool:
    """Register the poll, then a votes counter per option (each idempotent)."""
    created = counters.put_once(table, [items.poll_item(poll, now_iso())])
    for option in poll.options:
        counters.define(table, option_counter_definition(poll, option))
    return created


def get_poll(table: Table, poll_id: str) -> PollDefinition:
    """Read a poll's registry entry."""
    item = table.get_item(schema.poll_registry_key(poll_id))
    if item is None:
        raise UnknownCounter(f"There is no poll named {poll_id!r}.")
    return items.poll_from_item(item)


def list_polls(table: Table) -> list[PollDefinition]:
    """Every poll from its registry partition."""
    return [items.poll_from_item(item) for item in table.query_all(schema.POLL_REGISTRY_PK)]


# ---- administration ----


def create_poll(table: Table, poll: PollDefinition) -> PollDefinition:
    """Put the poll and every option counter in one transaction, each only if new."""
    now = now_iso()
    new_items = [items.poll_item(poll, now)]
    for option in poll.options:
        new_items.extend(items.counter_items(option_counter_definition(poll, option), now))
    failed = transact(table, [table.put_new_entry(item) for item in new_items])
    if failed is not None:
        if failed == 0:
            raise Conflict(f"A poll named {poll.id!r} exists already.")
        taken = items.name_from_counter_pk(new_items[failed])
        raise Conflict(f"A counter named {taken!r} exists already; pick other option ids.")
    return poll


def add_poll_option(table: Table, poll_id: str, option: PollOption) -> PollDefinition:
    """Append an option if its id is new, with its counter, in one transaction."""
    poll = get_poll(table, poll_id)
    if any(existing.id == option.id for existing in poll.options):
        raise Conflict(f"Poll {poll_id!r} already has an option {option.id!r}.")
    now = now_iso()
    # Options are only ever appended: a list of the size read is the list read, so the id is still
    # new when the update applies. The counter's own Put condition guards the id a second time.
    append = table.update_entry(
        schema.poll_registry_key(poll_id),
        update=APPEND_OPTION,
        condition=OPTIONS_SEEN,
        names={"#pk": schema.PK, "#options": schema.OPTIONS, "#updated": schema.UPDATED_AT},
        values={
            ":new": {"L": [items.option_item(option)]},
            ":now": {"S": now},
            ":seen": {"N": str(len(poll.options))},
        },
    )
    counter = [
        table.put_new_entry(item)
        for item in items.counter_items(option_counter_definition(poll, option), now)
    ]
    failed = transact(table, [append, *counter])
    if failed == 0:
        raise Conflict(f"Poll {poll_id!r} changed meanwhile; look again and retry.")
    if failed is not None:
        name = option_counter_name(poll_id, option.id)
        raise Conflict(f"A counter named {name!r} exists already; pick another option id.")
    return PollDefinition(
        id=poll.id, question=poll.question, options=(*poll.options, option), closed=poll.closed
    )


def set_poll_closed(table: Table, poll_id: str, *, closed: bool) -> PollDefinition:
    """Set the poll's `closed` flag only if it is the other way now (a poll without one is open)."""
    try:
        attributes = table.update_item(
            schema.poll_registry_key(poll_id),
            update=SET_CLOSED,
            condition=NOT_YET_SO,
            names={"#pk": schema.PK, "#closed": schema.CLOSED, "#updated": schema.UPDATED_AT},
            values={":closed": {"BOOL": closed}, ":now": {"S": now_iso()}},
            returns="ALL_NEW",
            old_on_failure=True,
        )
    except ConditionFailed as exc:
        if not exc.item:
            raise UnknownCounter(f"There is no poll named {poll_id!r}.") from exc
        state = "closed" if closed else "open"
        raise Conflict(f"Poll {poll_id!r} is already {state}.") from exc
    return items.poll_from_item(attributes)


def transact(table: Table, writes: list[dict[str, Any]]) -> int | None:
    """Run one transaction; the index of the first write whose condition failed, or None."""
    try:
        table.transact(writes)
    except TransactionCancelled as exc:
        failed = exc.first(CONDITION_FAILED)
        if failed is not None:
            return failed
        if TRANSACTION_CONFLICT in exc.codes:
            raise Conflict("The poll changed meanwhile; look again and retry.") from exc
        raise StoreUnavailable("The counter store refused the poll change; try again.") from exc
    return None
