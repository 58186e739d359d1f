"""A poll's edit, reset and deletion: each one transaction, conditional on the version staff saw.

A reset sets every option's total to 0 (each conditioned on the version read, so no vote slips between
the read and the reset unrecorded), the voter tally to 0, and bumps the poll's `resets` and `version`:
voter records written before hold no vote from then on (values.VoterRecord.in_poll). A deletion removes
the poll, its join code and its option counters. The audit item `PK=P#<poll>`, `SK=RESET#<time>#<id>`
(who, why, the version seen and each option's total removed) is in the same transaction, as a counter
reset's is. An edit (question and labels) applies only while every option's total is at version 0: until
the first vote.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from counters.domain import refusals
from counters.domain.clock import now_iso
from counters.domain.names import option_counter_name
from counters.domain.polls import option_counter_definition
from counters.domain.values import PollAudit, PollDefinition
from counters.exceptions import Conflict, InvalidInput, UnknownCounter, VersionConflict
from counters.store.dynamodb import items, polls, schema
from counters.store.dynamodb.expressions import named, typed
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.table import Table

POLL_AT_VERSION = "#version = :seen"
RESET_POLL = "SET #updated = :now ADD #version :one, #resets :one"
TOTAL_AT_VERSION = "#version = :seen AND attribute_not_exists(#shards)"
ZERO_TOTAL = "SET #value = :zero, #updated = :now ADD #version :one"
ZERO_TALLY = "SET #voters = :zero"
EDIT_POLL = "SET #question = :question, #options = :options, #updated = :now ADD #version :one"


def totals_read(table: Table, poll: PollDefinition) -> dict[str, tuple[int, int]]:
    """Each option's (value, version), read consistently; InvalidInput for a hot option counter."""
    keys = [schema.total_key(option_counter_name(poll.id, option.id)) for option in poll.options]
    found = {items.name_from_counter_pk(item): item for item in table.batch_get(keys)}
    totals = {}
    for option in poll.options:
        item = found.get(option_counter_name(poll.id, option.id), {})
        if schema.is_hot(item):
            raise InvalidInput("A poll with a hot option counter is reset option by option.")
        totals[option.id] = (items.item_value(item), as_int(item.get(schema.VERSION)))
    return totals


def seen_poll(table: Table, poll_id: str, expected_version: int) -> PollDefinition:
    """The poll, if still at the version staff saw; VersionConflict (with the poll now) otherwise."""
    poll = polls.get_poll(table, poll_id)
    if poll.version != expected_version:
        raise VersionConflict(
            refusals.poll_version_changed(poll_id, poll.version),
            current=poll,
        )
    return poll


def reset_poll(
    table: Table, poll_id: str, *, expected_version: int, actor: str, reason: str
) -> PollDefinition:
    """Zero a poll's votes if it is still at `expected_version`, with its audit item, in one transaction."""
    poll = seen_poll(table, poll_id, expected_version)
    totals = totals_read(table, poll)
    now = now_iso()
    writes = [poll_update(table, poll, RESET_POLL, now)]
    writes += [zero_total(table, poll, option, version, now) for option, (_, version) in totals.items()]
    writes.append(
        table.update_entry(
            schema.tally_key(poll_id),
            update=ZERO_TALLY,
            condition=None,
            names=named(voters=schema.VOTERS),
            values=typed(zero=0),
        )
    )
    writes.append(audit_put(table, poll, "reset", totals, actor=actor, reason=reason, at=now))
    commit(table, poll_id, writes)
    return replace(poll, version=poll.version + 1, resets=poll.resets + 1)


def delete_poll(table: Table, poll_id: str, *, expected_version: int, actor: str, reason: str) -> None:
    """Remove a poll, its join code and its option counters if still at `expected_version`, audited."""
    poll = seen_poll(table, poll_id, expected_version)
    totals = totals_read(table, poll)
    writes = [
        table.delete_entry(
            schema.poll_registry_key(poll_id),
            condition=POLL_AT_VERSION,
            names=named(version=schema.VERSION),
            values=typed(seen=poll.version),
        )
    ]
    if poll.code:
        writes.append(table.delete_entry(schema.join_key(poll.code)))
    for option in poll.options:
        name = option_counter_name(poll_id, option.id)
        writes += [
            table.delete_entry(schema.total_key(name)),
            table.delete_entry(schema.counter_registry_key(name)),
        ]
    writes.append(audit_put(table, poll, "delete", totals, actor=actor, reason=reason, at=now_iso()))
    commit(table, poll_id, writes)


def poll_update(table: Table, poll: PollDefinition, update: str, now: str) -> dict[str, Any]:
    """The poll's own item, updated only at the version read."""
    return table.update_entry(
        schema.poll_registry_key(poll.id),
        update=update,
        condition=POLL_AT_VERSION,
        names=named(version=schema.VERSION, resets=schema.RESETS, updated=schema.UPDATED_AT),
        values=typed(seen=poll.version, one=1, now=now),
    )


def zero_total(table: Table, poll: PollDefinition, option: str, version: int, now: str) -> dict[str, Any]:
    """An option's total set to 0, only at the version read."""
    return table.update_entry(
        schema.total_key(option_counter_name(poll.id, option)),
        update=ZERO_TOTAL,
        condition=TOTAL_AT_VERSION,
        names=named(
            value=schema.VALUE, version=schema.VERSION, updated=schema.UPDATED_AT, shards=schema.SHARDS
        ),
        values=typed(zero=0, one=1, now=now, seen=version),
    )


def audit_put(
    table: Table, poll: PollDefinition, action: str, totals: dict, *, actor: str, reason: str, at: str
) -> dict[str, Any]:
    """The audit item of a reset or deletion."""
    audit = PollAudit(
        poll=poll.id,
        action=action,
        at=at,
        actor=actor,
        reason=reason,
        old_version=poll.version,
        totals={option: value for option, (value, _) in totals.items()},
    )
    return table.put_entry(items.poll_audit_item(audit, uuid.uuid4().hex[:8]))


def commit(table: Table, poll_id: str, writes: list[dict[str, Any]]) -> None:
    """Run the transaction; VersionConflict (with the poll now) if the poll or a total moved meanwhile."""
    try:
        failed = polls.transact(table, writes)
    except Conflict as exc:
        failed = exc
    if failed is not None:
        try:
            current = polls.get_poll(table, poll_id)
        except UnknownCounter:  # deleted meanwhile: say so with no state
            current = None
        raise VersionConflict(
            f"Poll {poll_id} or its totals changed meanwhile. Look again and confirm.", current=current
        ) from (failed if isinstance(failed, Exception) else None)


def poll_audit(table: Table, poll_id: str, *, limit: int = 50) -> list[PollAudit]:
    """A poll's resets and deletion, newest first."""
    found = table.query_all(
        schema.poll_pk(poll_id), sk_prefix=schema.RESET_SK_PREFIX, newest_first=True, limit=limit
    )
    return [items.poll_audit_from_item(poll_id, item) for item in found]


def edit_poll(
    table: Table, poll_id: str, *, expected_version: int, question: str, labels: dict[str, str]
) -> PollDefinition:
    """Change the question and option labels if the poll is at `expected_version` and no option has
    taken a vote yet (each total still at version 0): one transaction, titles of the counters too."""
    poll = seen_poll(table, poll_id, expected_version)
    edited = replace(
        poll,
        question=question,
        options=tuple(replace(o, label=labels.get(o.id, o.label)) for o in poll.options),
        version=poll.version + 1,
    )
    now = now_iso()
    writes = [
        table.update_entry(
            schema.poll_registry_key(poll_id),
            update=EDIT_POLL,
            condition=POLL_AT_VERSION,
            names=named(
                version=schema.VERSION,
                question=schema.QUESTION,
                options=schema.OPTIONS,
                updated=schema.UPDATED_AT,
            ),
            values=typed(
                seen=poll.version,
                one=1,
                now=now,
                question=question,
                options={"L": [items.option_item(option) for option in edited.options]},
            ),
        )
    ]
    writes += [unvoted_title(table, edited, option.id) for option in edited.options]
    try:
        failed = polls.transact(table, writes)
    except Conflict as exc:
        raise VersionConflict("The poll changed meanwhile; look again.", current=None) from exc
    if failed == 0:
        raise VersionConflict(
            f"Poll {poll_id} changed meanwhile; look again.", current=polls.get_poll(table, poll_id)
        )
    if failed is not None:
        raise Conflict(refusals.EDIT_LOCKED)
    return edited


def unvoted_title(table: Table, poll: PollDefinition, option: str) -> dict[str, Any]:
    """An option counter's title set anew, only while it has taken no vote."""
    definition = option_counter_definition(poll, next(o for o in poll.options if o.id == option))
    return table.update_entry(
        schema.total_key(definition.name),
        update="SET #title = :title",
        condition="attribute_exists(#version) AND #version = :zero",
        names=named(title=schema.TITLE, version=schema.VERSION),
        values=typed(title=definition.title, zero=0),
    )
