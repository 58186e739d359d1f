"""Poll selectors on the memory store: totals, listings and a voter's choices."""

from __future__ import annotations

import pytest

from counters import selectors
from counters.exceptions import InvalidInput, UnknownCounter


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
