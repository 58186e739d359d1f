"""What one vote changes, decided the same way by every store from the poll and the voter's record."""

from __future__ import annotations

from datetime import datetime

from counters.domain import refusals
from counters.domain.poll_rules import (
    check_may_vote,
    check_option,
    keeps_voter_count,
    option_ids,
    pick_change,
)
from counters.domain.values import PollDefinition, VoteChange, VoterRecord
from counters.exceptions import InvalidInput, PollClosed


def decide_vote(
    poll: PollDefinition,
    record: VoterRecord,
    *,
    voter: str,
    option: str | None,
    picked: bool | None,
    now: datetime,
) -> VoteChange:
    """The change asked for: `option` as the choice (None retracts), or one pick added or removed in a
    multiple-choice poll. Refused (PollClosed, NotAllowed, InvalidInput, Conflict) as the poll's rules say."""
    check_may_vote(poll, voter=voter, now=now)
    check_option(poll.id, option, option_ids(poll))
    if poll.kind != "multi":
        return VoteChange(poll=poll, voter=voter, choice=option, previous=record.option)
    if option is None or picked is None:
        raise InvalidInput(refusals.ONE_PICK)
    return pick_change(poll, record, voter=voter, option=option, picked=picked)


def voter_count_move(poll: PollDefinition, *, held: bool, change: VoteChange) -> int:
    """How the poll's count of voters moves: +1 as the voter joins, -1 as they leave, 0 otherwise."""
    if not keeps_voter_count(poll):
        return 0
    return bool(change.record_option) - held


def check_room(poll: PollDefinition, *, voters: int) -> None:
    """PollClosed if one more voter would pass the poll's `max_voters`."""
    if poll.max_voters is not None and voters >= poll.max_voters:
        raise PollClosed(refusals.poll_full(poll.id))
