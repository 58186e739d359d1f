"""Votes: cast, move or retract a vote in one store transaction, answered once per Idempotency-Key."""

from __future__ import annotations

import time
from dataclasses import dataclass

from counters import selectors
from counters.domain.names import validate_slug
from counters.domain.replays import replay_voter
from counters.domain.values import CounterState, PollDefinition, VoteChange
from counters.exceptions import Conflict, IdempotencyRace
from counters.live import broadcast, catalog
from counters.live.read_back import ReadBack
from counters.metrics import metrics
from counters.runtime import runtime
from counters.services import idempotency
from counters.services.vote_gate import vote_slot
from counters.services.vote_totals import Snapshot, known_totals
from counters.store import get_store


@dataclass(frozen=True)
class VoteOutcome:
    """The answer to a vote or retraction, and whether it was replayed from an Idempotency-Key."""

    body: dict
    replayed: bool = False
    # The poll's totals behind body["poll"]: the web layer shows them as the asker may see them.
    totals: selectors.PollTotals | None = None
    # The voter the answer belongs to when it is not the asker: a resend without a voter of its own
    # became the voter its key was first used by (the web layer sets that voter's cookie).
    voter: str | None = None


@dataclass(frozen=True)
class _Ballot:
    """What one vote request asks: `option` (None retracts) for `voter`, minted for it or not."""

    poll_id: str
    voter: str
    option: str | None
    picked: bool | None
    new_voter: bool


def vote_cast(
    *,
    poll_id: str,
    voter: str,
    option: str,
    idempotency_key: str | None = None,
    picked: bool | None = None,
    new_voter: bool = False,
) -> VoteOutcome:
    """Make `option` the voter's choice in a poll (moving any earlier vote), or in a multiple-choice
    poll add (`picked`) or remove one pick, and push the new totals. `new_voter`: the voter was minted
    for this request (no cookie, not signed in), so a resend of its key may become it (domain/replays.py)."""
    validate_slug(option, what="option id")
    ballot = _Ballot(poll_id, voter, option, picked, new_voter)
    return _vote_change(ballot, idempotency_key)


def vote_retract(
    *, poll_id: str, voter: str, idempotency_key: str | None = None, new_voter: bool = False
) -> VoteOutcome:
    """Withdraw the voter's vote in a poll, if any, and push the new totals."""
    return _vote_change(_Ballot(poll_id, voter, None, None, new_voter), idempotency_key)


def _vote_change(ballot: _Ballot, idempotency_key: str | None) -> VoteOutcome:
    """One vote transaction, answered once per Idempotency-Key."""
    validate_slug(ballot.poll_id, what="poll id")
    key = idempotency.validate_key(idempotency_key)
    with vote_slot():
        outcome = _vote_change_now(ballot, key)
    result = "replayed" if outcome.replayed else "counted" if outcome.body["counted"] else "unchanged"
    metrics().votes.labels("retract" if ballot.option is None else "vote", result).inc()
    return outcome


def _vote_change_now(ballot: _Ballot, key: str | None) -> VoteOutcome:
    """The vote's reads and writes, in this process's turn."""
    store = get_store()
    poll_id, voter, option, picked = ballot.poll_id, ballot.voter, ballot.option, ballot.picked
    # Taken before the transaction is sent, so it cannot hold this vote: the answer adds it once.
    before = known_totals().snapshot(poll_id)
    if key is None:
        change = store.cast_vote(poll_id, voter=voter, option=option, picked=picked)
        return _vote_reply(store, change, before)
    # A pick's fingerprint names it; a single-choice vote's stays as it always was. The voter is not in
    # it: the key is the poll's, and the record names its voter (domain/replays.py decides a resend).
    picking = {} if picked is None else {"picked": picked}
    fingerprint = idempotency.fingerprint_of(
        action="retract" if option is None else "vote", poll=poll_id, option=option, **picking
    )
    claim = idempotency.claim(key, fingerprint, new_voter=ballot.new_voter)
    try:
        change = store.cast_vote(poll_id, voter=voter, option=option, claim=claim, picked=picked)
    except IdempotencyRace as race:
        # This key was used before (or a twin request just committed it): answer with that result.
        return _replay(store, race, ballot=ballot, key=key, fingerprint=fingerprint)
    # The key's record, written by the vote's own transaction, holds the change: a replay answers from
    # it with the totals of its time, so no reply needs saving after the vote.
    return _vote_reply(store, change, before)


def _replay(store, race: IdempotencyRace, *, ballot: _Ballot, key: str, fingerprint: str) -> VoteOutcome:
    """The change the earlier request with this key made, with the totals read now, answered as the
    key's voter; 409 if that was another request, or another voter's (domain/replays.py). The totals
    are read, not known: that change may be newer than what is known."""
    stored = race.stored if race.stored is not None else store.stored_reply(ballot.poll_id, key)
    if stored is None:  # expired in between: rare enough to ask the client to send it again
        raise Conflict("This Idempotency-Key was just released; send the request again.")
    answered_as = replay_voter(
        stored, voter=ballot.voter, new_voter=ballot.new_voter, fingerprint=fingerprint
    )
    if race.poll is not None:
        totals = selectors.poll_totals_from_states(race.poll, _read_totals(store, race.poll))
    else:
        totals = selectors.poll_totals(poll_id=ballot.poll_id)
    body = vote_body(totals, choice=stored.choice, previous=stored.previous, counted=stored.counted)
    voter = answered_as if answered_as != ballot.voter else None
    return VoteOutcome(body=body, replayed=True, totals=totals, voter=voter)


def _vote_reply(store, change: VoteChange, before: Snapshot | None) -> VoteOutcome:
    """The answer with the poll's totals after the change, and the moved counters pushed.

    A store that knows the moved totals exactly as its write left them (`change.totals`) has them
    pushed as they are, with no read. Otherwise, with recent known totals and a server loop, the totals
    are those plus this change (see vote_totals.py) and the read for the push is left to the read-back,
    off the request path: the vote costs its transaction alone. Otherwise (and for a change that
    changed nothing, which may follow a resend that did) the totals are read once now.
    """
    states = known_totals().applied(change, before) if before is not None and change.counted else None
    if change.totals:
        broadcast.publish(change.totals)
        states = None if states is None else states | {state.name: state for state in change.totals}
    elif states is not None and not vote_read_back().request([change.poll.id]):
        states = None
    if states is None:
        states = _read_totals(store, change.poll)
        moved = [states[name] for name in change.changed_counters() if name in states]
        if moved and not change.totals:
            broadcast.publish(moved)
    totals = selectors.poll_totals_from_states(change.poll, states)
    if change.counted and change.poll.max_voters is not None and totals.voters >= change.poll.max_voters:
        # Full now (or nearly, in a multiple-choice poll, whose picks outnumber its voters): open pages
        # learn it is closed, and see totals its rule shows once closed.
        catalog.publish_catalog()
    body = vote_body(totals, choice=change.choice, previous=change.previous, counted=change.counted)
    return VoteOutcome(body=body, totals=totals)


def _read_totals(store, poll: PollDefinition) -> dict[str, CounterState]:
    """One read of a poll's option totals, kept as this process's known totals."""
    names = selectors.option_counters(poll)
    began = time.monotonic()
    states = store.get_many(names)
    known_totals().learn(poll.id, names, states, began=began)
    return {state.name: state for state in states}


def read_polls(poll_ids: list[str]) -> list[CounterState]:
    """The read-back of polls that took votes: their option totals in one read, kept as known."""
    store = get_store()
    known = known_totals()
    names = {poll_id: known.names(poll_id) for poll_id in poll_ids}
    began = time.monotonic()
    states = store.get_many([name for poll_names in names.values() for name in poll_names])
    for poll_id, poll_names in names.items():
        known.learn(poll_id, poll_names, states, began=began)
    return states


def vote_read_back() -> ReadBack:
    """This process's read-back of polls that took votes."""
    return runtime().vote_read_back


def vote_body(
    totals: selectors.PollTotals, *, choice: str | None, previous: str | None, counted: bool
) -> dict:
    """The vote answer: the poll's totals, the voter's choice before and after, and whether it counted."""
    return {"poll": totals.as_dict(), "choice": choice, "previous": previous, "counted": counted}
