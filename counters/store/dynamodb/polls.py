"""Polls in DynamoDB: definitions in the registry, and the admin's writes, each one conditional.

Every admin write says what it expects (the poll is new; the option id is new; the poll is open before
a close), so two staff members working at once get a clear refusal instead of a silent overwrite.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from counters.domain import refusals
from counters.domain.clock import now_iso
from counters.domain.names import option_counter_name
from counters.domain.poll_rules import new_code, normalize_code
from counters.domain.polls import option_counter_definition
from counters.domain.values import PollDefinition, PollOption
from counters.exceptions import Conflict, InvalidInput, StoreUnavailable, UnknownCounter
from counters.store.dynamodb import counters, items, schema
from counters.store.dynamodb.expressions import named, typed
from counters.store.dynamodb.schema import as_str
from counters.store.dynamodb.table import (
    CONDITION_FAILED,
    TRANSACTION_CONFLICT,
    ConditionFailed,
    Table,
    TransactionCancelled,
)

APPEND_OPTION = "SET #options = list_append(#options, :new), #updated = :now ADD #version :one"
OPTIONS_SEEN = "attribute_exists(#pk) AND size(#options) = :seen"
SET_FLAG = "SET #flag = :on, #updated = :now ADD #version :one"
# Turning a flag on: it is off or absent (a poll stored before the flag existed has it off).
NOT_YET_ON = "attribute_exists(#pk) AND NOT #flag = :true"
# Turning it off: it is on.
STILL_ON = "attribute_exists(#pk) AND #flag = :true"


# Tries at a random join code before giving up (31^5 codes: a second try is already rare).
CODE_ATTEMPTS = 5

# ---- definitions ----


def define_poll(table: Table, poll: PollDefinition) -> bool:
    """Register the poll with its join code (once), then a votes counter per option (each idempotent)."""
    created = put_poll(table, poll, []) is not None
    for option in poll.options:
        counters.define(table, option_counter_definition(poll, option))
    return created


def put_poll(table: Table, poll: PollDefinition, more: list[dict[str, Any]]) -> PollDefinition | None:
    """Put the poll, its join code and `more` items in one transaction, each only if new; the poll as
    written, or None if it exists. A random code that is taken is drawn again; a chosen one is a Conflict."""
    for _ in range(CODE_ATTEMPTS):
        coded = poll if poll.code else replace(poll, code=new_code())
        now = now_iso()
        new_items = [items.poll_item(coded, now), items.join_item(coded, now), *more]
        failed = transact(table, [table.put_new_entry(item) for item in new_items])
        if failed is None:
            return coded
        if failed == 0:
            return None
        if failed > 1:
            taken = items.name_from_counter_pk(new_items[failed])
            raise Conflict(refusals.option_counter_taken(taken, several=True))
        if poll.code:
            raise Conflict(refusals.code_taken(poll.code))
    raise Conflict("No free join code was found; try again.")


def get_poll(table: Table, poll_id: str) -> PollDefinition:
    """Read a poll's registry entry."""
    item = table.get_item(schema.poll_registry_key(poll_id))
    if item is None:
        raise UnknownCounter(refusals.no_poll(poll_id))
    return items.poll_from_item(item)


def poll_by_code(table: Table, code: str) -> PollDefinition:
    """The poll a join code opens (any case); UnknownCounter if none."""
    try:
        code = normalize_code(code)
    except InvalidInput as exc:
        raise UnknownCounter(refusals.no_code(code)) from exc
    item = table.get_item(schema.join_key(code))
    if item is None or schema.POLL not in item:  # no code, or a talk's
        raise UnknownCounter(refusals.no_code(code))
    return get_poll(table, as_str(item.get(schema.POLL)))


def list_polls(table: Table) -> list[PollDefinition]:
    """Every poll from its registry partition."""
    return [items.poll_from_item(item) for item in table.query_all(schema.POLL_REGISTRY_PK)]


# ---- administration ----


def create_poll(table: Table, poll: PollDefinition) -> PollDefinition:
    """Put the poll, its join code and every option counter in one transaction, each only if new."""
    now = now_iso()
    counters_items = []
    for option in poll.options:
        counters_items.extend(items.counter_items(option_counter_definition(poll, option), now))
    created = put_poll(table, poll, counters_items)
    if created is None:
        raise Conflict(refusals.poll_exists(poll.id))
    return created


def add_poll_option(table: Table, poll_id: str, option: PollOption) -> PollDefinition:
    """Append an option if its id is new, with its counter, in one transaction."""
    poll = get_poll(table, poll_id)
    if any(existing.id == option.id for existing in poll.options):
        raise Conflict(refusals.option_exists(poll_id, option.id))
    now = now_iso()
    # Options are only ever appended: a list of the size read is the list read, so the id is still
    # new when the update applies. The counter's own Put condition guards the id a second time.
    append = table.update_entry(
        schema.poll_registry_key(poll_id),
        update=APPEND_OPTION,
        condition=OPTIONS_SEEN,
        names=named(pk=schema.PK, options=schema.OPTIONS, updated=schema.UPDATED_AT, version=schema.VERSION),
        values=typed(one=1, new={"L": [items.option_item(option)]}, now=now, seen=len(poll.options)),
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
        raise Conflict(refusals.option_counter_taken(name, several=False))
    return replace(poll, options=(*poll.options, option), version=poll.version + 1)


def set_poll_closed(table: Table, poll_id: str, *, closed: bool) -> PollDefinition:
    """Set the poll's `closed` flag only if it is the other way now (a poll without one is open)."""
    return set_poll_flag(table, poll_id, schema.CLOSED, closed, refusals.CLOSED_WORDS)


def set_poll_revealed(table: Table, poll_id: str, *, revealed: bool) -> PollDefinition:
    """Set the poll's `revealed` flag only if it is the other way now."""
    return set_poll_flag(table, poll_id, schema.REVEALED, revealed, refusals.REVEALED_WORDS)


def set_poll_unlisted(table: Table, poll_id: str, *, unlisted: bool) -> PollDefinition:
    """Set the poll's `unlisted` flag only if it is the other way now (a poll without one is listed)."""
    return set_poll_flag(table, poll_id, schema.UNLISTED, unlisted, refusals.UNLISTED_WORDS)


def set_poll_flag(table: Table, poll_id: str, flag: str, on: bool, words: tuple[str, str]) -> PollDefinition:
    """Set one flag of the poll, only if it is the other way now, bumping its version; Conflict if so."""
    try:
        attributes = table.update_item(
            schema.poll_registry_key(poll_id),
            update=SET_FLAG,
            condition=NOT_YET_ON if on else STILL_ON,
            names=named(pk=schema.PK, flag=flag, updated=schema.UPDATED_AT, version=schema.VERSION),
            values=typed(on=on, true=True, now=now_iso(), one=1),
            returns="ALL_NEW",
            old_on_failure=True,
        )
    except ConditionFailed as exc:
        if not exc.item:
            raise UnknownCounter(refusals.no_poll(poll_id)) from exc
        raise Conflict(refusals.poll_already(poll_id, words, on)) from exc
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
