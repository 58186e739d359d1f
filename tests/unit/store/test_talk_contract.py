"""The store contract for talks: polls in order, a join code of its own, the poll open now; both backends."""

from __future__ import annotations

from dataclasses import replace

import pytest

from counters.domain.values import PollDefinition, PollOption, Talk, TalkPoll
from counters.exceptions import Conflict, UnknownCounter, VersionConflict
from tests.unit.store import test_contract

# The contract's own parametrisation: every test runs on DynamoDB Local and on the memory store.
pytest_generate_tests = test_contract.pytest_generate_tests
any_store = test_contract.any_store


def poll(store, poll_id: str) -> PollDefinition:
    options = (PollOption(id="yes", label="Yes"), PollOption(id="no", label="No"))
    return store.create_poll(PollDefinition(id=poll_id, question=f"{poll_id}?", options=options))


def test_a_new_talk_keeps_its_polls_in_order_under_its_own_code(any_store):
    polls = [poll(any_store, name) for name in ("zeta", "alpha", "mid")]
    entries = (TalkPoll("zeta", minutes=2), TalkPoll("alpha"), TalkPoll("mid", minutes=10))
    talk = any_store.create_talk(Talk(id="keynote", title="Keynote", polls=entries))
    assert len(talk.code) == 5 and talk.code not in {p.code for p in polls}
    assert talk.version == 0
    stored = any_store.get_talk("keynote")
    assert stored == talk
    assert stored.poll_ids == ["zeta", "alpha", "mid"]
    assert stored.polls[0].minutes == 2 and stored.polls[1].minutes is None
    assert any_store.talk_by_code(talk.code.lower()) == talk
    assert any_store.list_talks() == [talk]


def test_a_talk_code_is_no_poll_code_and_a_poll_code_no_talk_code(any_store):
    first = poll(any_store, "first")
    talk = any_store.create_talk(Talk(id="talk", title="Talk"))
    with pytest.raises(UnknownCounter):
        any_store.poll_by_code(talk.code)
    with pytest.raises(UnknownCounter):
        any_store.talk_by_code(first.code)
    with pytest.raises(Conflict):
        any_store.create_talk(Talk(id="other", title="Other", code=first.code))
    options = (PollOption(id="a", label="A"), PollOption(id="b", label="B"))
    with pytest.raises(Conflict):
        any_store.create_poll(PollDefinition(id="second", question="?", options=options, code=talk.code))
    assert any_store.list_talks() == [talk]
    assert [p.id for p in any_store.list_polls()] == ["first"]


def test_a_talk_id_is_taken_once(any_store):
    any_store.create_talk(Talk(id="talk", title="One"))
    with pytest.raises(Conflict):
        any_store.create_talk(Talk(id="talk", title="Two"))
    assert any_store.get_talk("talk").title == "One"


def test_saving_at_the_version_read_reorders_and_opens_and_bumps_the_version(any_store):
    for name in ("a", "b"):
        poll(any_store, name)
    talk = any_store.create_talk(Talk(id="talk", title="Talk", polls=(TalkPoll("a"), TalkPoll("b", 3))))
    changed = replace(talk, title="Talk, again", polls=tuple(reversed(talk.polls)), current="b")
    saved = any_store.save_talk(changed, expected_version=0)
    assert (saved.title, saved.poll_ids, saved.current, saved.version) == ("Talk, again", ["b", "a"], "b", 1)
    assert saved.code == talk.code and saved.polls[0].minutes == 3
    assert any_store.get_talk("talk") == saved


def test_saving_at_an_old_version_changes_nothing_and_says_what_is_there(any_store):
    talk = any_store.create_talk(Talk(id="talk", title="Talk"))
    any_store.save_talk(replace(talk, title="New"), expected_version=0)
    with pytest.raises(VersionConflict) as refused:
        any_store.save_talk(replace(talk, title="Lost"), expected_version=0)
    assert refused.value.current.title == "New"
    assert any_store.get_talk("talk").title == "New"


def test_an_unknown_talk_is_unknown(any_store):
    with pytest.raises(UnknownCounter):
        any_store.get_talk("nope")
    with pytest.raises(UnknownCounter):
        any_store.talk_by_code("ZZZZZ")
    with pytest.raises(UnknownCounter):
        any_store.save_talk(Talk(id="nope", title="Nope"), expected_version=0)


def test_a_poll_takes_a_closing_time_and_loses_it(any_store):
    before = poll(any_store, "timed")
    timed = any_store.set_poll_closes_at("timed", closes_at="2026-11-25T18:00:00+00:00")
    assert timed.closes_at == "2026-11-25T18:00:00+00:00" and timed.version == before.version + 1
    assert any_store.get_poll("timed").closes_at == "2026-11-25T18:00:00+00:00"
    assert any_store.set_poll_closes_at("timed", closes_at=None).closes_at is None
    assert any_store.get_poll("timed").closes_at is None
    with pytest.raises(UnknownCounter):
        any_store.set_poll_closes_at("nope", closes_at=None)
