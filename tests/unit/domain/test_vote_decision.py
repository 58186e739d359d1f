"""What one vote changes, as both stores decide it (counters/domain/vote_decision.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from counters.domain import refusals
from counters.domain.values import PollDefinition, PollOption, VoterRecord
from counters.domain.vote_decision import check_room, decide_vote, voter_count_move
from counters.exceptions import Conflict, InvalidInput, NotAllowed, PollClosed

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
OPTIONS = (PollOption("a", "A"), PollOption("b", "B"), PollOption("c", "C"))
NO_VOTE = VoterRecord(option=None, rev=0)


def poll(**settings) -> PollDefinition:
    return PollDefinition(id="p", question="Q?", options=OPTIONS, **settings)


def decide(the_poll, record=NO_VOTE, *, option, picked=None, voter="anon:x"):
    return decide_vote(the_poll, record, voter=voter, option=option, picked=picked, now=NOW)


def test_a_single_choice_vote_moves_from_the_held_option_and_a_retraction_leaves_it():
    held = VoterRecord(option="a", rev=3)
    moved = decide(poll(), held, option="b")
    assert (moved.previous, moved.choice, moved.counted) == ("a", "b", True)
    retracted = decide(poll(), held, option=None)
    assert (retracted.previous, retracted.choice) == ("a", None)
    assert not decide(poll(), held, option="a").counted


def test_a_closed_or_past_poll_and_an_unknown_option_are_refused():
    with pytest.raises(PollClosed):
        decide(poll(closed=True), option="a")
    with pytest.raises(PollClosed):
        decide(poll(closes_at="2026-11-25T11:59:59+00:00"), option="a")
    with pytest.raises(InvalidInput, match="has no option 'z'"):
        decide(poll(), option="z")
    with pytest.raises(NotAllowed):
        decide(poll(audience="users"), option="a")
    assert decide(poll(audience="users"), option="a", voter="user:7").choice == "a"


def test_a_multiple_choice_vote_adds_or_removes_one_pick_within_the_limit():
    multi = poll(kind="multi", max_picks=2)
    with pytest.raises(InvalidInput) as refused:
        decide(multi, option="a")
    assert str(refused.value) == refusals.ONE_PICK
    holding = VoterRecord(option="a", rev=1, picks=frozenset({"a", "b"}))
    with pytest.raises(Conflict, match="at most 2 picks"):
        decide(multi, holding, option="c", picked=True)
    removed = decide(multi, holding, option="b", picked=False)
    assert (removed.previous, removed.choice, removed.picks) == ("b", None, frozenset({"a"}))


def test_the_voter_count_moves_only_as_a_voter_joins_or_leaves_a_poll_that_keeps_one():
    capped = poll(max_voters=2)
    joining = decide(capped, option="a")
    assert voter_count_move(capped, held=False, change=joining) == 1
    leaving = decide(capped, VoterRecord(option="a", rev=1), option=None)
    assert voter_count_move(capped, held=True, change=leaving) == -1
    moving = decide(capped, VoterRecord(option="a", rev=1), option="b")
    assert voter_count_move(capped, held=True, change=moving) == 0
    assert voter_count_move(poll(), held=False, change=decide(poll(), option="a")) == 0
    check_room(capped, voters=1)
    with pytest.raises(PollClosed, match="all the voters it takes"):
        check_room(capped, voters=2)
