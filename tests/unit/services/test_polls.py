"""Poll services on the memory store: create, add an option, close and reopen."""

from __future__ import annotations

import pytest

from counters import services
from counters.exceptions import Conflict, InvalidInput

OPTIONS = [("tea", "Tea"), ("coffee", "Coffee")]


def test_a_new_poll_is_stored_and_its_option_counters_pushed(memory_store, published):
    poll = services.poll_create(poll_id="drink", question=" Tea or coffee? ", options=OPTIONS)
    assert poll.question == "Tea or coffee?"
    assert memory_store.get_poll("drink") == poll
    assert published == [("drink.tea", 0, 0), ("drink.coffee", 0, 0)]


def test_a_poll_is_created_once(memory_store, published):
    services.poll_create(poll_id="drink", question="Tea or coffee?", options=OPTIONS)
    with pytest.raises(Conflict, match="exists already"):
        services.poll_create(poll_id="drink", question="Again?", options=[("a", "A"), ("b", "B")])
    assert memory_store.get_poll("drink").question == "Tea or coffee?"


def test_a_poll_needs_valid_distinct_options(memory_store, published):
    with pytest.raises(InvalidInput):
        services.poll_create(poll_id="drink", question="Tea?", options=[("tea", "Tea")])
    with pytest.raises(InvalidInput):
        services.poll_create(poll_id="drink", question="Tea?", options=[("tea", "Tea"), ("tea", "Chai")])
    assert memory_store.list_polls() == []


def test_an_option_is_added_once(memory_store, published):
    services.poll_create(poll_id="drink", question="Tea or coffee?", options=OPTIONS)
    poll = services.poll_add_option(poll_id="drink", option_id="water", label="Water")
    assert [option.id for option in poll.options] == ["tea", "coffee", "water"]
    assert published[-1] == ("drink.water", 0, 0)
    with pytest.raises(Conflict, match="already has an option 'water'"):
        services.poll_add_option(poll_id="drink", option_id="water", label="Still water")


def test_a_poll_closes_and_reopens(memory_store, published):
    services.poll_create(poll_id="drink", question="Tea or coffee?", options=OPTIONS)
    assert services.poll_set_closed(poll_id="drink", closed=True).closed is True
    with pytest.raises(Conflict, match="already closed"):
        services.poll_set_closed(poll_id="drink", closed=True)
    assert services.poll_set_closed(poll_id="drink", closed=False).closed is False
