"""One vote's attempts: decide from a read (or a remembered guess), send the transaction, and take it
again from a fresh read when a concurrent change cancelled it."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import NamedTuple

from counters.domain import refusals
from counters.domain.poll_rules import keeps_voter_count
from counters.domain.values import IdempotencyClaim, VoteChange, VoterRecord
from counters.domain.vote_decision import decide_vote
from counters.exceptions import (
    Conflict,
    CounterError,
    IdempotencyRace,
    OutcomeUnknown,
    PollClosed,
    StoreUnavailable,
)
from counters.store.dynamodb.table import CONDITION_FAILED, Table, TransactionCancelled, TransactionInProgress
from counters.store.dynamodb.vote_items import vote_transaction
from counters.store.dynamodb.vote_memory import VoteBasis, VoteMemory
from counters.store.poll_clock import poll_clock

# A transaction cancelled by a concurrent click is taken again from a fresh read, with jitter.
VOTE_ATTEMPTS = 8
BACKOFF_SECONDS = 0.01
# Cancellation reasons that mean DynamoDB refused the work outright: nothing was changed.
THROTTLED_REASONS = frozenset({"ThrottlingError", "ProvisionedThroughputExceeded"})

# What cast_vote reads before deciding: the poll and the voter's record (see `vote_reads`).
VoteReads = Callable[[str, str, IdempotencyClaim | None], VoteBasis]


class Ballot(NamedTuple):
    """What the voter asked for: `option` as their choice in the poll (None retracts)."""

    poll_id: str
    voter: str
    option: str | None
    claim: IdempotencyClaim | None
    # A multiple-choice poll: add (True) or remove (False) the pick `option`.
    picked: bool | None = None

    def decide(self, basis: VoteBasis) -> VoteChange:
        """The change asked for, from `basis`, by the rules both stores share (or their refusal)."""
        return decide_vote(
            basis.poll,
            basis.record,
            voter=self.voter,
            option=self.option,
            picked=self.picked,
            now=poll_clock().utc_now(),
        )


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
        return replace(self.ballot.decide(basis), lowered=not self.floor_hit)

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
            raise PollClosed(refusals.poll_full(self.ballot.poll_id)) from exc
        if any(code in THROTTLED_REASONS for code in reasons.values()):
            raise StoreUnavailable("The counter store is busy; nothing was changed.") from exc
        if first_attempt and self.memory is not None:
            self.memory.forget(self.ballot.poll_id, self.ballot.voter)


def guessed(memory: VoteMemory | None, ballot: Ballot) -> VoteBasis | None:
    """The memory's guess, if it would lead to a write: a refusal or "nothing changed" is only ever
    answered from a read."""
    found = memory.guess(ballot.poll_id, ballot.voter) if memory is not None else None
    # Multiple choice, voter counts and polls for signed-in users: always from a read (their refusals
    # depend on more than a guess).
    if found is None or keeps_voter_count(found.poll) or found.poll.audience != "anyone":
        return None
    try:
        return found if ballot.decide(found).counted else None
    except CounterError:
        return None
