"""Poll selectors on the memory store: totals, listings and a voter's choices."""

from __future__ import annotations

import pytest

from counters import selectors
from counters.domain.values import PollDefinition, PollOption
from counters.exceptions import InvalidInput, UnknownCounter

PAST, AHEAD = "2000-01-01T00:00:00Z", "2999-01-01T00:00:00Z"


def test_poll_totals_follow_the_votes_in_option_order(memory_demo_store):
    memory_demo_store.cast_vote("language", voter="v1", option="rust")
    memory_demo_store.cast_vote("language", voter="v2", option="rust")
    memory_demo_store.cast_vote("language", voter="v3", option="python")
    totals = selectors.poll_totals(poll_id="language")
    assert [(o.id, o.votes) for o in totals.options] == [
        ("python", 1),
        ("go", 0),
        ("rust", 2),
        ("typescript", 0),
    ]
    assert totals.total_votes == 3
    assert totals.as_dict()["options"][2] == {
        "id": "rust",
        "label": "Rust",
        "counter": "language.rust",
        "votes": 2,
        "version": 2,
    }


def test_poll_totals_of_an_unknown_or_malformed_poll_are_refused(memory_demo_store):
    with pytest.raises(UnknownCounter):
        selectors.poll_totals(poll_id="ghost")
    with pytest.raises(InvalidInput):
        selectors.poll_totals(poll_id="Not a poll")


def test_poll_list_shows_every_poll_by_id_with_its_state(memory_demo_store):
    memory_demo_store.set_poll_closed("deploy", closed=True)
    memory_demo_store.cast_vote("language", voter="v1", option="go")
    listed = selectors.poll_list()
    assert [(p.id, p.closed, p.total_votes) for p in listed] == [("deploy", True, 0), ("language", False, 1)]


def test_voter_choices_name_the_option_held_in_each_poll(memory_demo_store):
    memory_demo_store.cast_vote("language", voter="v1", option="go")
    memory_demo_store.cast_vote("deploy", voter="v1", option="aws")
    memory_demo_store.cast_vote("deploy", voter="v1", option=None)
    assert selectors.voter_choices(voter="v1", poll_ids=["language", "deploy"]) == {"language": "go"}
    assert selectors.voter_choices(voter="v2", poll_ids=["language"]) == {}
    assert selectors.voter_choices(voter="v1", poll_ids=[]) == {}


def test_a_poll_past_its_closing_time_reads_closed_by_its_rule(memory_store):
    options = (PollOption(id="yes", label="Yes"), PollOption(id="no", label="No"))
    memory_store.create_poll(PollDefinition(id="past", question="Past?", options=options, closes_at=PAST))
    memory_store.create_poll(PollDefinition(id="ahead", question="Ahead?", options=options, closes_at=AHEAD))
    memory_store.create_poll(PollDefinition(id="shut", question="Shut?", options=options, closed=True))
    listed = {p.id: p for p in selectors.poll_list()}
    assert [(i, p.closed, p.closed_by_rule) for i, p in listed.items()] == [
        ("ahead", False, False),
        ("past", True, True),
        ("shut", True, False),
    ]
    assert selectors.poll_totals(poll_id="past").as_dict()["closed"] is True
