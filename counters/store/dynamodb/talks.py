"""Talks in DynamoDB: a registry item per talk and a join code item in the polls' code partition.

A talk's code shares the `JOIN` partition with the polls' codes, so the one conditional Put that keeps
poll codes unique keeps a talk's apart from them too. Every change after creation is one UpdateItem
conditional on the version the authoring page read.
"""

from __future__ import annotations

from dataclasses import replace

from counters.domain import refusals
from counters.domain.clock import now_iso
from counters.domain.poll_rules import new_code, normalize_code
from counters.domain.values import PollDefinition, Talk
from counters.exceptions import Conflict, InvalidInput, UnknownCounter, VersionConflict
from counters.store.dynamodb import items, schema
from counters.store.dynamodb.expressions import named, typed
from counters.store.dynamodb.polls import CODE_ATTEMPTS, transact
from counters.store.dynamodb.schema import as_str
from counters.store.dynamodb.table import ConditionFailed, Table

SAVE_TALK = "SET #title = :title, #polls = :polls, #current = :current, #updated = :now ADD #version :one"
AT_VERSION = "attribute_exists(#pk) AND #version = :expected"
SET_CLOSES_AT = "SET #closes = :closes, #updated = :now ADD #version :one"
CLEAR_CLOSES_AT = "REMOVE #closes SET #updated = :now ADD #version :one"
POLL_EXISTS = "attribute_exists(#pk)"


def create_talk(table: Table, talk: Talk) -> Talk:
    """Put the talk and its join code in one transaction, each only if new; a taken random code is
    drawn again, a taken id is a Conflict."""
    for _ in range(CODE_ATTEMPTS):
        coded = replace(talk, code=talk.code or new_code(), version=0)
        now = now_iso()
        writes = [items.talk_item(coded, now), items.talk_join_item(coded, now)]
        failed = transact(table, [table.put_new_entry(item) for item in writes])
        if failed is None:
            return coded
        if failed == 0:
            raise Conflict(refusals.talk_exists(talk.id))
        if talk.code:
            raise Conflict(refusals.code_taken(talk.code))
    raise Conflict("No free join code was found; try again.")


def get_talk(table: Table, talk_id: str) -> Talk:
    """Read a talk's registry entry."""
    item = table.get_item(schema.talk_registry_key(talk_id))
    if item is None:
        raise UnknownCounter(refusals.no_talk(talk_id))
    return items.talk_from_item(item)


def talk_by_code(table: Table, code: str) -> Talk:
    """The talk a join code opens (any case); UnknownCounter if none (or if the code is a poll's)."""
    try:
        code = normalize_code(code)
    except InvalidInput as exc:
        raise UnknownCounter(refusals.no_code(code)) from exc
    item = table.get_item(schema.join_key(code))
    if item is None or schema.TALK not in item:
        raise UnknownCounter(refusals.no_code(code))
    return get_talk(table, as_str(item.get(schema.TALK)))


def list_talks(table: Table) -> list[Talk]:
    """Every talk from its registry partition, sorted by id (the sort key)."""
    return [items.talk_from_item(item) for item in table.query_all(schema.TALK_REGISTRY_PK)]


def save_talk(table: Table, talk: Talk, *, expected_version: int) -> Talk:
    """Write the talk's title, polls and open poll if it is still at `expected_version`; bump it."""
    try:
        attributes = table.update_item(
            schema.talk_registry_key(talk.id),
            update=SAVE_TALK,
            condition=AT_VERSION,
            names=named(
                pk=schema.PK,
                title=schema.TITLE,
                polls=schema.TALK_POLLS,
                current=schema.CURRENT,
                updated=schema.UPDATED_AT,
                version=schema.VERSION,
            ),
            values=typed(
                title=talk.title,
                polls=items.talk_polls_attribute(talk),
                current=talk.current,
                now=now_iso(),
                one=1,
                expected=expected_version,
            ),
            returns="ALL_NEW",
            old_on_failure=True,
        )
    except ConditionFailed as exc:
        if not exc.item:
            raise UnknownCounter(refusals.no_talk(talk.id)) from exc
        now = items.talk_from_item(exc.item)
        raise VersionConflict(refusals.talk_version_changed(talk.id), current=now) from exc
    return items.talk_from_item(attributes)


def set_poll_closes_at(table: Table, poll_id: str, *, closes_at: str | None) -> PollDefinition:
    """Set (or clear, with None) a poll's closing time; bump its version."""
    try:
        attributes = table.update_item(
            schema.poll_registry_key(poll_id),
            update=SET_CLOSES_AT if closes_at else CLEAR_CLOSES_AT,
            condition=POLL_EXISTS,
            names=named(
                pk=schema.PK, closes=schema.CLOSES_AT, updated=schema.UPDATED_AT, version=schema.VERSION
            ),
            values=typed(now=now_iso(), one=1, **({"closes": closes_at} if closes_at else {})),
            returns="ALL_NEW",
        )
    except ConditionFailed as exc:
        raise UnknownCounter(refusals.no_poll(poll_id)) from exc
    return items.poll_from_item(attributes)
