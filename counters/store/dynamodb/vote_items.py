"""A vote's TransactWriteItems: the poll still open, the voter's record, the totals, the key's record."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from counters.domain.clock import now_iso
from counters.domain.names import option_counter_name
from counters.domain.values import IdempotencyClaim, PollDefinition, VoteChange, VoterRecord
from counters.domain.vote_decision import voter_count_move
from counters.store.dynamodb import items, schema
from counters.store.dynamodb.expressions import named, typed
from counters.store.dynamodb.table import Table, TransactionCancelled
from counters.store.poll_clock import poll_clock

# Open: not closed by staff, and its closing time (stored to the second in UTC, as now_iso's times,
# so the strings compare as the times do) not reached.
POLL_OPEN = (
    "attribute_exists(#pk) AND #closed = :false AND (attribute_not_exists(#closes) OR #closes > :now)"
    # Not reset since the vote was decided (a poll from before resets existed has none).
    " AND (attribute_not_exists(#resets) OR #resets = :resets)"
)
VOTER_UNCHANGED_NEW = "attribute_not_exists(#pk)"
VOTER_UNCHANGED = "#rev = :rev"
ADD_VOTE = "SET #value = if_not_exists(#value, #start) + :one, #updated = :now ADD #version :one"
REMOVE_VOTE = "SET #value = #value - :one, #updated = :now ADD #version :one"
IS_VOTES = "attribute_exists(#pk) AND #kind = :votes"
ABOVE_ZERO = "attribute_exists(#pk) AND #kind = :votes AND #value >= :one"
AT_ZERO = "attribute_exists(#pk) AND (attribute_not_exists(#value) OR #value < :one)"
IDEM_FREE = "attribute_not_exists(#pk) OR #expires < :nowts"
TALLY_ADD = "ADD #voters :n"
BELOW_MAX = "attribute_not_exists(#voters) OR #voters < :max"


@dataclass
class VoteTransaction:
    """The transaction's items, each with its role, by which the cancellation reasons are read."""

    items: list[dict[str, Any]] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)

    def add(self, role: str, item: dict[str, Any]) -> None:
        """Append one item of the transaction."""
        self.items.append(item)
        self.roles.append(role)

    def reasons(self, exc: TransactionCancelled) -> dict[str, str]:
        """Why DynamoDB cancelled it: each role's reason."""
        return dict(zip(self.roles, exc.codes, strict=False))


class VoterUnchanged(NamedTuple):
    """The condition that the voter's record is still at the revision read (or still absent)."""

    condition: str
    names: dict[str, str]
    values: dict[str, Any] | None


def vote_transaction(
    table: Table, change: VoteChange, record: VoterRecord, claim: IdempotencyClaim | None, *, floor_hit: bool
) -> VoteTransaction:
    """The transaction's items: the counted change (or a check that nothing changed), and the key's record."""
    now = now_iso()
    transaction = VoteTransaction()
    if change.counted:
        add_counted_change(transaction, table, change, record, now=now, floor_hit=floor_hit)
    else:
        unchanged = voter_unchanged(record)
        voter_key = schema.voter_key(change.poll.id, change.voter)
        check = table.check_entry(
            voter_key, condition=unchanged.condition, names=unchanged.names, values=unchanged.values
        )
        transaction.add("voter", check)
    if claim is not None:
        transaction.add("idem", idempotency_put(table, change, claim, now))
    return transaction


def add_counted_change(
    transaction: VoteTransaction,
    table: Table,
    change: VoteChange,
    record: VoterRecord,
    *,
    now: str,
    floor_hit: bool,
) -> None:
    """The poll still open, the voter's new record, +1 on the new option and -1 (floor 0) on the old."""
    poll_id = change.poll.id
    transaction.add("poll", poll_open_check(table, change.poll))
    unchanged = voter_unchanged(record)
    voter_put = table.put_entry(
        items.voter_item(change, rev=record.rev + 1, now=now),
        condition=unchanged.condition,
        names=unchanged.names,
        values=unchanged.values,
    )
    transaction.add("voter", voter_put)
    if move := voter_count_move(change.poll, held=record.holds_vote, change=change):
        transaction.add("tally", tally_update(table, change.poll, joined=move > 0))
    if change.choice:
        transaction.add("new", total_update(table, poll_id, change.choice, ADD_VOTE, IS_VOTES, now))
    if change.previous and floor_hit:
        transaction.add("old", total_check(table, poll_id, change.previous))
    elif change.previous:
        transaction.add("old", total_update(table, poll_id, change.previous, REMOVE_VOTE, ABOVE_ZERO, now))


def tally_update(table: Table, poll: PollDefinition, *, joined: bool) -> dict[str, Any]:
    """One voter more (refused once the poll holds `max_voters`) or one fewer in the poll's tally."""
    capped = joined and poll.max_voters is not None
    return table.update_entry(
        schema.tally_key(poll.id),
        update=TALLY_ADD,
        condition=BELOW_MAX if capped else None,
        names=named(voters=schema.VOTERS),
        values=typed(n=1, max=poll.max_voters) if capped else typed(n=1 if joined else -1),
    )


def voter_unchanged(record: VoterRecord) -> VoterUnchanged:
    """The voter's record must still be at the revision read (or still absent)."""
    if record.rev:
        return VoterUnchanged(VOTER_UNCHANGED, named(rev=schema.REV), typed(rev=record.rev))
    return VoterUnchanged(VOTER_UNCHANGED_NEW, named(pk=schema.PK), None)


def poll_open_check(table: Table, poll: PollDefinition) -> dict[str, Any]:
    """Refuse the vote if the poll was closed, reset or removed since we read it."""
    return table.check_entry(
        schema.poll_registry_key(poll.id),
        condition=POLL_OPEN,
        names=named(pk=schema.PK, closed=schema.CLOSED, closes=schema.CLOSES_AT, resets=schema.RESETS),
        values=typed(false=False, now=poll_clock().iso_now(), resets=poll.resets),
    )


def total_update(table: Table, poll_id: str, option: str, expression: str, condition: str, now: str) -> dict:
    """ADD or remove one vote on an option's total (never read-then-set)."""
    names = named(
        pk=schema.PK, value=schema.VALUE, updated=schema.UPDATED_AT, version=schema.VERSION, kind=schema.KIND
    )
    if "#start" in expression:
        names |= named(start=schema.START)
    return table.update_entry(
        schema.total_key(option_counter_name(poll_id, option)),
        update=expression,
        condition=condition,
        names=names,
        values=typed(one=1, now=now, votes="votes"),
    )


def total_check(table: Table, poll_id: str, option: str) -> dict[str, Any]:
    """The old option's total is already 0 (e.g. reset by staff): move the vote, leave it at 0."""
    return table.check_entry(
        schema.total_key(option_counter_name(poll_id, option)),
        condition=AT_ZERO,
        names=named(pk=schema.PK, value=schema.VALUE),
        values=typed(one=1),
    )


def idempotency_put(table: Table, change: VoteChange, claim: IdempotencyClaim, now: str) -> dict[str, Any]:
    """The idempotency record, written only if the key is new (or its record expired)."""
    return table.put_entry(
        items.idempotency_item(change, claim, now),
        condition=IDEM_FREE,
        names=named(pk=schema.PK, expires=schema.EXPIRES_AT),
        values=typed(nowts=int(time.time())),
    )
