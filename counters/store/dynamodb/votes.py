"""Votes in DynamoDB: one vote per voter per poll, each change one TransactWriteItems.

The decision is domain/vote_decision.py's; here it is read (vote_reads.py), written as one transaction
(vote_items.py) and taken again after a concurrent change (vote_attempts.py).

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

from counters.domain.values import IdempotencyClaim, VoteChange
from counters.store.dynamodb.table import Table
from counters.store.dynamodb.vote_attempts import Ballot, VoteAttempts, VoteReads
from counters.store.dynamodb.vote_memory import VoteMemory
from counters.store.dynamodb.vote_reads import vote_reads


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
