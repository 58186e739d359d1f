"""Whom a vote resent with a used Idempotency-Key is answered as: the voter the key was first used by.

A key is claimed per poll, so a resend counts once whatever cookies the client kept. A resend that
comes without a voter of its own (no cookie, not signed in: its voter was minted for it) becomes the
key's voter, but only if the first answer set that voter's cookie too: it then gets exactly what the
first answer gave. An established voter (another cookie, or a signed-in user) never becomes someone
else, and a signed-in user's identity is never handed out: such a resend is refused, changing nothing.
"""

from __future__ import annotations

from counters.domain.values import StoredReply
from counters.exceptions import IdempotencyKeyInUse, IdempotencyKeyReused

ANONYMOUS_PREFIX = "anon:"


def replay_voter(stored: StoredReply, *, voter: str, new_voter: bool, fingerprint: str) -> str:
    """The voter a resend with this key is answered as; a 409 error if it may not be answered at all."""
    if stored.voter != voter and not may_become(stored, new_voter=new_voter):
        raise IdempotencyKeyInUse(
            "This Idempotency-Key was used by another voter in this poll; nothing was changed."
        )
    if stored.fingerprint != fingerprint:
        raise IdempotencyKeyReused(
            "This Idempotency-Key was already used with a different request; nothing was changed."
        )
    return stored.voter


def may_become(stored: StoredReply, *, new_voter: bool) -> bool:
    """Whether a request whose voter was minted for it may take the key's voter, as its first answer did."""
    return new_voter and stored.new_voter and stored.voter.startswith(ANONYMOUS_PREFIX)
