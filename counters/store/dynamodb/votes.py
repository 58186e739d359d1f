"""Votes in DynamoDB: one vote per voter per poll, each change one TransactWriteItems.

Items (see docs/design.md):
- voter record `PK=P#<poll>`, `SK=VOTER#<voter>`: `option` (absent once retracted) and `rev`, which
  grows with every change. The transaction's condition is on `rev`, not on `option`, so a vote that
  went A -> B -> A between our read and our write is still seen as changed (no ABA).
- option totals `PK=C#<poll>.<option>`, `SK=TOTAL`: +1 on the new option, -1 on the old one, the
  decrement guarded by `value >= 1` so no total ever goes below zero.
- idempotency record `PK=IDEM#<voter>#<key>`, `SK=IDEM`: put in the same transaction (absent or
  expired), holding the request's fingerprint and the change, from which a replay is answered.
  Keys are scoped per voter, so two clients picking the same key never collide.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from counters.domain.clock import now_iso
from counters.domain.names import option_counter_name
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
from counters.store.dynamodb import items
from counters.store.dynamodb import schema as s
from counters.store.dynamodb.schema import optional_str
from counters.store.dynamodb.table import (
    CONDITION_FAILED,
    Table,
    TransactionCancelled,
    TransactionInProgress,
)
from counters.store.dynamodb.vote_memory import VoteMemory

# A transaction cancelled by a concurrent click is taken again from a fresh read, with jitter.
VOTE_ATTEMPTS = 8
BACKOFF_SECONDS = 0.01
# Cancellation reasons that mean DynamoDB refused the work outright: nothing was changed.
THROTTLED_REASONS = frozenset({"ThrottlingError", "ProvisionedThroughputExceeded"})

POLL_OPEN = "attribute_exists(#pk) AND #closed = :false"
VOTER_UNCHANGED_NEW = "attribute_not_exists(#pk)"
VOTER_UNCHANGED = "#rev = :rev"
ADD_VOTE = "SET #value = if_not_exists(#value, #start) + :one, #updated = :now ADD #version :one"
REMOVE_VOTE = "SET #value = #value - :one, #updated = :now ADD #version :one"
IS_VOTES = "attribute_exists(#pk) AND #kind = :votes"
ABOVE_ZERO = "attribute_exists(#pk) AND #kind = :votes AND #value >= :one"
AT_ZERO = "attribute_exists(#pk) AND (attribute_not_exists(#value) OR #value < :one)"
IDEM_FREE = "attribute_not_exists(#pk) OR #expires < :nowts"

# What cast_vote reads before deciding: the poll and the voter's record (see `vote_reads`).
VoteReads = Callable[[str, str, IdempotencyClaim | None], tuple[PollDefinition, VoterRecord]]


# ---- reads ----


def voter_record(table: Table, poll_id: str, voter: str) -> VoterRecord:
    """A voter's choice in a poll, strongly consistent."""
    return items.voter_record_from_item(table.get_item(s.voter_key(poll_id, voter)))


def voter_choices(table: Table, voter: str, poll_ids: list[str]) -> dict[str, str]:
    """A voter's choice in each of several polls (polls without a vote are left out)."""
    keys = [s.voter_key(poll_id, voter) for poll_id in dict.fromkeys(poll_ids)]
    choices: dict[str, str] = {}
    for item in table.batch_get(keys):
        if option := optional_str(item.get(s.OPTION)):
            choices[items.poll_id_from_voter_item(item)] = option
    return choices


def poll_voters(table: Table, poll_id: str) -> dict[str, str]:
    """Every voter holding a vote in a poll, with their option (one Query of the poll's partition)."""
    voters = {}
    for item in table.query_all(s.poll_pk(poll_id)):
        option = optional_str(item.get(s.OPTION))
        if items.is_voter_item(item) and option:
            voters[items.voter_from_item(item)] = option
    return voters


def stored_reply(table: Table, voter: str, key: str, *, now: int | None = None) -> StoredReply | None:
    """The live idempotency record of a voter's key, or None (expired records count as gone)."""
    item = table.get_item(s.idempotency_key(voter, key))
    if not items.is_live(item, now or int(time.time())):
        return None
    return items.reply_from_item(item)


def vote_reads(
    table: Table, poll_id: str, voter: str, claim: IdempotencyClaim | None
) -> tuple[PollDefinition, VoterRecord]:
    """Poll, voter record and (with a key) idempotency record in one consistent BatchGetItem."""
    keys = [s.poll_registry_key(poll_id), s.voter_key(poll_id, voter)]
    if claim is not None:
        keys.append(s.idempotency_key(voter, claim.key))
    found = {item[s.PK]["S"]: item for item in table.batch_get(keys)}
    if s.POLL_REGISTRY_PK not in found:
        raise UnknownCounter(f"There is no poll named {poll_id!r}.")
    poll = items.poll_from_item(found[s.POLL_REGISTRY_PK])
    idem = found.get(s.idempotency_key(voter, claim.key)[s.PK]["S"]) if claim else None
    if idem is not None and items.is_live(idem, int(time.time())):
        # The key was used already: the caller answers from its record, read here already.
        raise IdempotencyRace(items.reply_from_item(idem), poll)
    return poll, items.voter_record_from_item(found.get(s.poll_pk(poll_id)))


# ---- the vote transaction ----


def cast_vote(
    table: Table,
    poll_id: str,
    *,
    voter: str,
    option: str | None,
    claim: IdempotencyClaim | None,
    reads: VoteReads,
    memory: VoteMemory | None = None,
) -> VoteChange:
    """Make `option` the voter's choice (None retracts) in one transaction; retry on a race.

    `reads` takes what the decision is made from (`vote_reads` on this table). With `memory`, the first
    attempt starts from its guess instead, with no read: the transaction's conditions check the guess,
    and a cancelled transaction is taken again from `reads` (see vote_memory.py).
    """
    floor_hit = False
    for attempt in range(VOTE_ATTEMPTS):
        found = guessed(memory, poll_id, voter, option) if attempt == 0 else None
        if found is None:
            found = reads(poll_id, voter, claim)
            if memory is not None:
                memory.read(found[0], voter, found[1])
        poll, record = found
        if poll.closed:
            raise PollClosed(f"The poll {poll_id!r} is closed and takes no more votes.")
        if option is not None and option not in {o.id for o in poll.options}:
            raise InvalidInput(f"The poll {poll_id!r} has no option {option!r}.")
        change = VoteChange(
            poll=poll, voter=voter, choice=option, previous=record.option, lowered=not floor_hit
        )
        if not change.counted and claim is None:
            return change
        writes, roles = vote_writes(table, change, record, claim, floor_hit=floor_hit)
        try:
            # A lost answer may hide a committed vote: never claim "nothing was changed".
            table.transact(writes, write=True)
            if memory is not None:
                memory.voted(change, record)
            return change
        except TransactionCancelled as exc:
            codes = dict(zip(roles, exc.codes, strict=False))
            # The old total refused -1 (already 0, e.g. reset by staff): next time only check it
            # is still 0, and flip back if a vote arrived meanwhile. A stale guess costs a retry.
            # Said by a transaction whose voter record was wrong, it was about another option: ignored.
            if codes.get("old") == CONDITION_FAILED and codes.get("voter") != CONDITION_FAILED:
                floor_hit = not floor_hit
            if codes.get("idem") == CONDITION_FAILED:
                raise IdempotencyRace from exc
            if any(code in THROTTLED_REASONS for code in codes.values()):
                raise StoreUnavailable("The counter store is busy; nothing was changed.") from exc
            if attempt == 0 and memory is not None:
                memory.forget(poll_id, voter)
        except TransactionInProgress:
            pass  # an SDK resend met its own first send still running: read again, then decide
        except OutcomeUnknown:
            if memory is not None:
                memory.unsure(poll_id, voter)  # so a resend finds the key's record before writing
            raise
        time.sleep(random.uniform(0, BACKOFF_SECONDS * 2**attempt))
    raise Conflict("Your vote changed at the same moment from elsewhere; nothing was changed. Try again.")


def guessed(
    memory: VoteMemory | None, poll_id: str, voter: str, option: str | None
) -> tuple[PollDefinition, VoterRecord] | None:
    """The memory's guess, if it would lead to a write: a refusal or "nothing changed" is only ever
    answered from a read."""
    found = memory.guess(poll_id, voter) if memory is not None else None
    if found is None:
        return None
    poll, record = found
    if poll.closed or record.option == option or (option and option not in {o.id for o in poll.options}):
        return None
    return found


def vote_writes(
    table: Table, change: VoteChange, record: VoterRecord, claim: IdempotencyClaim | None, *, floor_hit: bool
) -> tuple[list[dict[str, Any]], list[str]]:
    """The transaction's items and the role of each (for reading cancellation reasons)."""
    now = now_iso()
    writes: list[dict[str, Any]] = []
    roles: list[str] = []
    # The voter's record must still be at the revision read (or still absent).
    unchanged = VOTER_UNCHANGED if record.rev else VOTER_UNCHANGED_NEW
    unchanged_names = {"#rev": s.REV} if record.rev else {"#pk": s.PK}
    rev_values = {":rev": {"N": str(record.rev)}} if record.rev else None
    if change.counted:
        writes.append(poll_open_check(table, change.poll.id))
        roles.append("poll")
        voter_put = table.put_entry(
            items.voter_item(change, rev=record.rev + 1, now=now),
            condition=unchanged,
            names=unchanged_names,
            values=rev_values,
        )
        writes.append(voter_put)
        roles.append("voter")
        if change.choice:
            writes.append(total_update(table, change.poll.id, change.choice, ADD_VOTE, IS_VOTES, now))
            roles.append("new")
        if change.previous:
            if floor_hit:
                writes.append(total_check(table, change.poll.id, change.previous))
            else:
                writes.append(
                    total_update(table, change.poll.id, change.previous, REMOVE_VOTE, ABOVE_ZERO, now)
                )
            roles.append("old")
    else:
        voter_key = s.voter_key(change.poll.id, change.voter)
        writes.append(
            table.check_entry(voter_key, condition=unchanged, names=unchanged_names, values=rev_values)
        )
        roles.append("voter")
    if claim is not None:
        writes.append(idempotency_put(table, change, claim, now))
        roles.append("idem")
    return writes, roles


def poll_open_check(table: Table, poll_id: str) -> dict[str, Any]:
    """Refuse the vote if the poll was closed (or removed) since we read it."""
    return table.check_entry(
        s.poll_registry_key(poll_id),
        condition=POLL_OPEN,
        names={"#pk": s.PK, "#closed": s.CLOSED},
        values={":false": {"BOOL": False}},
    )


def total_update(table: Table, poll_id: str, option: str, expression: str, condition: str, now: str) -> dict:
    """ADD or remove one vote on an option's total (never read-then-set)."""
    names = {
        "#pk": s.PK,
        "#value": s.VALUE,
        "#updated": s.UPDATED_AT,
        "#version": s.VERSION,
        "#kind": s.KIND,
    }
    if "#start" in expression:
        names["#start"] = s.START
    return table.update_entry(
        s.total_key(option_counter_name(poll_id, option)),
        update=expression,
        condition=condition,
        names=names,
        values={":one": {"N": "1"}, ":now": {"S": now}, ":votes": {"S": "votes"}},
    )


def total_check(table: Table, poll_id: str, option: str) -> dict[str, Any]:
    """The old option's total is already 0 (e.g. reset by staff): move the vote, leave it at 0."""
    return table.check_entry(
        s.total_key(option_counter_name(poll_id, option)),
        condition=AT_ZERO,
        names={"#pk": s.PK, "#value": s.VALUE},
        values={":one": {"N": "1"}},
    )


def idempotency_put(table: Table, change: VoteChange, claim: IdempotencyClaim, now: str) -> dict[str, Any]:
    """The idempotency record, written only if the key is new (or its record expired)."""
    return table.put_entry(
        items.idempotency_item(change, claim, now),
        condition=IDEM_FREE,
        names={"#pk": s.PK, "#expires": s.EXPIRES_AT},
        values={":nowts": {"N": str(int(time.time()))}},
    )
