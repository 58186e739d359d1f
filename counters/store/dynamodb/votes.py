"""Votes in DynamoDB: one vote per voter per poll, each change one TransactWriteItems.

Items (see docs/design.md):
- voter record `PK=P#<poll>`, `SK=VOTER#<voter>`: `option` (absent once retracted) and `rev`, which
  grows with every change. The transaction's condition is on `rev`, not on `option`, so a vote that
  went A -> B -> A between our read and our write is still seen as changed (no ABA).
- option totals `PK=C#<poll>.<option>`, `SK=TOTAL`: +1 on the new option, -1 on the old one, the
  decrement guarded by `value >= 1` so no total ever goes below zero.
- idempotency record `PK=IDEM#<poll>#<key>`, `SK=IDEM`: put in the same transaction (absent or
  expired), holding the request's fingerprint, its voter and the change, from which a replay is
  answered. Keys are claimed per poll, not per voter, so a resend counts once even when it comes
  without the voter cookie the first answer set (services/votes.py decides whom a replay answers).
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from counters.domain.clock import now_iso
from counters.domain.names import option_counter_name
from counters.domain.poll_rules import (
    check_may_vote,
    check_option,
    is_closed,
    keeps_voter_count,
    option_ids,
    pick_change,
    utc_now,
)
from counters.domain.values import IdempotencyClaim, PollDefinition, StoredReply, VoteChange, VoterRecord
from counters.exceptions import (
    Conflict,
    IdempotencyRace,
    InvalidInput,
    OutcomeUnknown,
    PollClosed,
    StoreUnavailable,
    UnknownCounter,
)
from counters.store.dynamodb import items, schema
from counters.store.dynamodb.schema import as_int, optional_str
from counters.store.dynamodb.table import (
    CONDITION_FAILED,
    Table,
    TransactionCancelled,
    TransactionInProgress,
)
from counters.store.dynamodb.vote_memory import VoteBasis, VoteMemory

# A transaction cancelled by a concurrent click is taken again from a fresh read, with jitter.
VOTE_ATTEMPTS = 8
BACKOFF_SECONDS = 0.01
# Cancellation reasons that mean DynamoDB refused the work outright: nothing was changed.
THROTTLED_REASONS = frozenset({"ThrottlingError", "ProvisionedThroughputExceeded"})

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

# What cast_vote reads before deciding: the poll and the voter's record (see `vote_reads`).
VoteReads = Callable[[str, str, IdempotencyClaim | None], VoteBasis]


# ---- reads ----


def voter_record(table: Table, poll_id: str, voter: str) -> VoterRecord:
    """A voter's choice in a poll, strongly consistent."""
    return items.voter_record_from_item(table.get_item(schema.voter_key(poll_id, voter)))


def voter_choices(table: Table, voter: str, poll_ids: list[str]) -> dict[str, str]:
    """A voter's choice in each of several polls (polls without a vote, or reset since, are left out)."""
    unique = list(dict.fromkeys(poll_ids))
    keys = [schema.voter_key(poll_id, voter) for poll_id in unique]
    keys += [schema.poll_registry_key(poll_id) for poll_id in unique]
    found = table.batch_get(keys)
    resets = {
        item[schema.SK]["S"]: as_int(item.get(schema.RESETS)) for item in found if items.is_poll_item(item)
    }
    choices: dict[str, str] = {}
    for item in found:
        if items.is_poll_item(item) or not (option := optional_str(item.get(schema.OPTION))):
            continue
        poll_id = items.poll_id_from_voter_item(item)
        if as_int(item.get(schema.EPOCH)) == resets.get(poll_id, 0):
            choices[poll_id] = option
    return choices


def voter_picks(table: Table, voter: str, poll_id: str) -> frozenset[str]:
    """The options a voter holds in a poll (none if the record is from before the poll's last reset)."""
    found = table.batch_get([schema.poll_registry_key(poll_id), schema.voter_key(poll_id, voter)])
    poll = next((items.poll_from_item(item) for item in found if items.is_poll_item(item)), None)
    record = next((item for item in found if not items.is_poll_item(item)), None)
    if poll is None or record is None:
        return frozenset()
    held = items.voter_record_from_item(record).in_poll(poll)
    return held.picks or frozenset(filter(None, [held.option]))


def poll_voters(table: Table, poll_id: str) -> dict[str, str]:
    """Every voter holding a vote in a poll, with their option (one Query of the poll's partition)."""
    resets = get_resets(table, poll_id)
    voters = {}
    for item in table.query_all(schema.poll_pk(poll_id)):
        option = optional_str(item.get(schema.OPTION))
        if items.is_voter_item(item) and option and as_int(item.get(schema.EPOCH)) == resets:
            voters[items.voter_from_item(item)] = option
    return voters


def get_resets(table: Table, poll_id: str) -> int:
    """How many times a poll's votes were reset (0 for an unknown poll)."""
    item = table.get_item(schema.poll_registry_key(poll_id))
    return as_int(item.get(schema.RESETS)) if item else 0


def stored_reply(table: Table, poll_id: str, key: str, *, now: int | None = None) -> StoredReply | None:
    """The live idempotency record of a key in a poll, or None (expired records count as gone)."""
    item = table.get_item(schema.idempotency_key(poll_id, key))
    if not items.is_live(item, now or int(time.time())):
        return None
    return items.reply_from_item(item)


def vote_reads(table: Table, poll_id: str, voter: str, claim: IdempotencyClaim | None) -> VoteBasis:
    """Poll, voter record and (with a key) idempotency record in one consistent BatchGetItem."""
    keys = [schema.poll_registry_key(poll_id), schema.voter_key(poll_id, voter)]
    if claim is not None:
        keys.append(schema.idempotency_key(poll_id, claim.key))
    found = {item[schema.PK]["S"]: item for item in table.batch_get(keys)}
    if schema.POLL_REGISTRY_PK not in found:
        raise UnknownCounter(f"There is no poll named {poll_id!r}.")
    poll = items.poll_from_item(found[schema.POLL_REGISTRY_PK])
    idem = found.get(schema.idempotency_key(poll_id, claim.key)[schema.PK]["S"]) if claim else None
    if idem is not None and items.is_live(idem, int(time.time())):
        # The key was used already: the caller answers from its record, read here already.
        raise IdempotencyRace(items.reply_from_item(idem), poll)
    return VoteBasis(poll, items.voter_record_from_item(found.get(schema.poll_pk(poll_id))))


# ---- the vote transaction ----


class Ballot(NamedTuple):
    """What the voter asked for: `option` as their choice in the poll (None retracts)."""

    poll_id: str
    voter: str
    option: str | None
    claim: IdempotencyClaim | None
    # A multiple-choice poll: add (True) or remove (False) the pick `option`.
    picked: bool | None = None


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


def cast_vote(
    table: Table,
    poll_id: str,
    *,
    voter: str,
    option: str | None,
    claim: IdempotencyClaim | None = None,
    reads: VoteReads | None = None,
    memory: VoteMemory | None = None,
    picked: bool | None = None,
) -> VoteChange:
    """Make `option` the voter's choice (None retracts) in one transaction; retry on a race.

    `reads` takes what the decision is made from (default: `vote_reads` on this table). With `memory`,
    the first attempt starts from its guess instead, with no read: the transaction's conditions check
    the guess, and a cancelled transaction is taken again from `reads` (see vote_memory.py).
    """
    ballot = Ballot(poll_id, voter, option, claim, picked)
    reads = reads or functools.partial(vote_reads, table)
    return VoteAttempts(table, ballot, reads, memory).run()


@dataclass
class VoteAttempts:
    """One vote, taken again from a fresh read after each cancelled transaction (VOTE_ATTEMPTS at most)."""

    table: Table
    ballot: Ballot
    reads: VoteReads
    memory: VoteMemory | None
    # The old option's total refused -1 (already 0, e.g. reset by staff): the next attempt only checks
    # it is still 0, and flips back if a vote arrived meanwhile. A stale guess costs a retry.
    floor_hit: bool = False

    def run(self) -> VoteChange:
        """Read (or guess), decide, write; the change once its transaction committed."""
        for attempt in range(VOTE_ATTEMPTS):
            basis = self.basis(may_guess=attempt == 0)
            change = self.decide(basis)
            if not change.counted and self.ballot.claim is None:
                return change
            if self.commit(change, basis.record, first_attempt=attempt == 0):
                return change
            time.sleep(random.uniform(0, BACKOFF_SECONDS * 2**attempt))
        raise Conflict("Your vote changed at the same moment from elsewhere; nothing was changed. Try again.")

    def basis(self, *, may_guess: bool) -> VoteBasis:
        """The memory's guess if allowed and useful, else a consistent read (remembered)."""
        found = guessed(self.memory, self.ballot) if may_guess else None
        if found is None:
            found = self.reads(self.ballot.poll_id, self.ballot.voter, self.ballot.claim)
            if self.memory is not None:
                self.memory.read(found.poll, self.ballot.voter, found.record)
        # A record from before the poll's last reset holds no vote (its rev still guards the write).
        return VoteBasis(found.poll, found.record.in_poll(found.poll))

    def decide(self, basis: VoteBasis) -> VoteChange:
        """The change the vote makes from `basis`; refused if the poll is closed or lacks the option."""
        poll_id, option = self.ballot.poll_id, self.ballot.option
        check_may_vote(basis.poll, voter=self.ballot.voter, now=utc_now())
        check_option(poll_id, option, option_ids(basis.poll))
        if basis.poll.kind == "multi":
            if option is None or self.ballot.picked is None:
                raise InvalidInput(
                    'In this poll, add or remove one pick: {"option": "<id>", "picked": true}.'
                )
            change = pick_change(
                basis.poll, basis.record, voter=self.ballot.voter, option=option, picked=self.ballot.picked
            )
            return replace(change, lowered=not self.floor_hit)
        return VoteChange(
            poll=basis.poll,
            voter=self.ballot.voter,
            choice=option,
            previous=basis.record.option,
            lowered=not self.floor_hit,
        )

    def commit(self, change: VoteChange, record: VoterRecord, *, first_attempt: bool) -> bool:
        """Send the change's transaction; whether it committed (if not, it is to be taken again)."""
        transaction = vote_transaction(
            self.table, change, record, self.ballot.claim, floor_hit=self.floor_hit
        )
        try:
            # A lost answer may hide a committed vote: never claim "nothing was changed".
            self.table.transact(transaction.items, write=True)
        except TransactionCancelled as exc:
            self.cancelled(transaction.reasons(exc), exc, first_attempt=first_attempt)
            return False
        except TransactionInProgress:
            return False  # an SDK resend met its own first send still running: read again, then decide
        except OutcomeUnknown:
            if self.memory is not None:
                # So a resend finds the key's record before writing.
                self.memory.unsure(self.ballot.poll_id, self.ballot.voter)
            raise
        if self.memory is not None:
            self.memory.voted(change, record)
        return True

    def cancelled(self, reasons: dict[str, str], exc: TransactionCancelled, *, first_attempt: bool) -> None:
        """Learn from a cancelled transaction; raise when taking it again cannot help."""
        # Said by a transaction whose voter record was wrong, the old total's refusal was about another
        # option: ignored.
        if reasons.get("old") == CONDITION_FAILED and reasons.get("voter") != CONDITION_FAILED:
            self.floor_hit = not self.floor_hit
        if reasons.get("idem") == CONDITION_FAILED:
            raise IdempotencyRace from exc
        if reasons.get("tally") == CONDITION_FAILED and reasons.get("voter") != CONDITION_FAILED:
            raise PollClosed(f"The poll {self.ballot.poll_id!r} has all the voters it takes.") from exc
        if any(code in THROTTLED_REASONS for code in reasons.values()):
            raise StoreUnavailable("The counter store is busy; nothing was changed.") from exc
        if first_attempt and self.memory is not None:
            self.memory.forget(self.ballot.poll_id, self.ballot.voter)


def guessed(memory: VoteMemory | None, ballot: Ballot) -> VoteBasis | None:
    """The memory's guess, if it would lead to a write: a refusal or "nothing changed" is only ever
    answered from a read."""
    found = memory.guess(ballot.poll_id, ballot.voter) if memory is not None else None
    # Multiple choice and voter counts: always from a read (their refusals depend on more than a guess).
    if found is None or keeps_voter_count(found.poll):
        return None
    option = ballot.option
    if (
        is_closed(found.poll, now=utc_now(), voters=0)
        or found.poll.audience != "anyone"
        or found.record.option == option
        or (option and option not in option_ids(found.poll))
    ):
        return None
    return found


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
    if keeps_voter_count(change.poll) and record.holds_vote != bool(change.record_option):
        transaction.add("tally", tally_update(table, change.poll, joined=not record.holds_vote))
    if change.choice:
        transaction.add("new", total_update(table, poll_id, change.choice, ADD_VOTE, IS_VOTES, now))
    if change.previous and floor_hit:
        transaction.add("old", total_check(table, poll_id, change.previous))
    elif change.previous:
        transaction.add("old", total_update(table, poll_id, change.previous, REMOVE_VOTE, ABOVE_ZERO, now))


def tally_update(table: Table, poll: PollDefinition, *, joined: bool) -> dict[str, Any]:
    """One voter more (refused once the poll holds `max_voters`) or one fewer in the poll's tally."""
    if not joined:
        return table.update_entry(
            schema.tally_key(poll.id),
            update=TALLY_ADD,
            condition=None,
            names={"#voters": schema.VOTERS},
            values={":n": {"N": "-1"}},
        )
    values: dict[str, Any] = {":n": {"N": "1"}}
    condition = None
    if poll.max_voters is not None:
        condition, values[":max"] = BELOW_MAX, {"N": str(poll.max_voters)}
    return table.update_entry(
        schema.tally_key(poll.id),
        update=TALLY_ADD,
        condition=condition,
        names={"#voters": schema.VOTERS},
        values=values,
    )


def voter_counts(table: Table, poll_ids: list[str]) -> dict[str, int]:
    """Voters holding a vote in each poll that keeps a tally (one BatchGetItem)."""
    keys = [schema.tally_key(poll_id) for poll_id in dict.fromkeys(poll_ids)]
    return (
        {
            items.poll_id_from_voter_item(item): max(0, as_int(item.get(schema.VOTERS)))
            for item in table.batch_get(keys)
        }
        if keys
        else {}
    )


def voter_unchanged(record: VoterRecord) -> VoterUnchanged:
    """The voter's record must still be at the revision read (or still absent)."""
    if record.rev:
        return VoterUnchanged(VOTER_UNCHANGED, {"#rev": schema.REV}, {":rev": {"N": str(record.rev)}})
    return VoterUnchanged(VOTER_UNCHANGED_NEW, {"#pk": schema.PK}, None)


def poll_open_check(table: Table, poll: PollDefinition) -> dict[str, Any]:
    """Refuse the vote if the poll was closed, reset or removed since we read it."""
    return table.check_entry(
        schema.poll_registry_key(poll.id),
        condition=POLL_OPEN,
        names={
            "#pk": schema.PK,
            "#closed": schema.CLOSED,
            "#closes": schema.CLOSES_AT,
            "#resets": schema.RESETS,
        },
        values={":false": {"BOOL": False}, ":now": {"S": now_iso()}, ":resets": {"N": str(poll.resets)}},
    )


def total_update(table: Table, poll_id: str, option: str, expression: str, condition: str, now: str) -> dict:
    """ADD or remove one vote on an option's total (never read-then-set)."""
    names = {
        "#pk": schema.PK,
        "#value": schema.VALUE,
        "#updated": schema.UPDATED_AT,
        "#version": schema.VERSION,
        "#kind": schema.KIND,
    }
    if "#start" in expression:
        names["#start"] = schema.START
    return table.update_entry(
        schema.total_key(option_counter_name(poll_id, option)),
        update=expression,
        condition=condition,
        names=names,
        values={":one": {"N": "1"}, ":now": {"S": now}, ":votes": {"S": "votes"}},
    )


def total_check(table: Table, poll_id: str, option: str) -> dict[str, Any]:
    """The old option's total is already 0 (e.g. reset by staff): move the vote, leave it at 0."""
    return table.check_entry(
        schema.total_key(option_counter_name(poll_id, option)),
        condition=AT_ZERO,
        names={"#pk": schema.PK, "#value": schema.VALUE},
        values={":one": {"N": "1"}},
    )


def idempotency_put(table: Table, change: VoteChange, claim: IdempotencyClaim, now: str) -> dict[str, Any]:
    """The idempotency record, written only if the key is new (or its record expired)."""
    return table.put_entry(
        items.idempotency_item(change, claim, now),
        condition=IDEM_FREE,
        names={"#pk": schema.PK, "#expires": schema.EXPIRES_AT},
        values={":nowts": {"N": str(int(time.time()))}},
    )
