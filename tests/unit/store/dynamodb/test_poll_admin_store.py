"""Poll management writes against DynamoDB Local: each one conditional, each refusal explained."""

from __future__ import annotations

import pytest

from counters.domain.values import CounterDefinition, PollDefinition, PollOption
from counters.exceptions import Conflict, UnknownCounter

LUNCH = PollDefinition(
    id="lunch",
    question="Lunch?",
    options=(PollOption("soup", "Soup"), PollOption("salad", "Salad")),
    code="KQ7PM",  # given, so the stored poll equals it (a poll without one is given a random code)
)


def test_create_registers_the_poll_and_a_votes_counter_per_option(store):
    assert store.create_poll(LUNCH) == LUNCH
    assert store.get_poll("lunch") == LUNCH
    soup = store.get("lunch.soup")
    assert (soup.kind, soup.value, soup.version, soup.title) == ("votes", 0, 0, "Lunch? — Soup")
    assert store.counter_names() == ["lunch.salad", "lunch.soup"]


def test_create_refuses_an_existing_poll_or_option_counter_and_writes_nothing(store):
    store.create_poll(LUNCH)
    other = PollDefinition(id="lunch", question="Other?", options=(PollOption("pie", "Pie"),))
    with pytest.raises(Conflict, match="poll named 'lunch' exists"):
        store.create_poll(other)
    assert store.get_poll("lunch") == LUNCH and "lunch.pie" not in store.counter_names()

    store.define_counter(CounterDefinition(name="dinner.soup", kind="votes"))
    dinner = PollDefinition(
        id="dinner", question="Dinner?", options=(PollOption("pie", "Pie"), PollOption("soup", "Soup"))
    )
    with pytest.raises(Conflict, match=r"counter named 'dinner\.soup' exists"):
        store.create_poll(dinner)
    with pytest.raises(UnknownCounter):
        store.get_poll("dinner")
    assert "dinner.pie" not in store.counter_names()


def test_add_option_only_with_a_new_id(store):
    store.create_poll(LUNCH)
    poll = store.add_poll_option("lunch", PollOption("pasta", "Pasta"))
    assert [option.id for option in poll.options] == ["soup", "salad", "pasta"]
    assert store.get_poll("lunch") == poll
    assert (store.get("lunch.pasta").kind, store.get("lunch.pasta").value) == ("votes", 0)
    with pytest.raises(Conflict, match="already has an option 'soup'"):
        store.add_poll_option("lunch", PollOption("soup", "Soup again"))
    assert len(store.get_poll("lunch").options) == 3
    with pytest.raises(UnknownCounter):
        store.add_poll_option("ghost", PollOption("x", "X"))


def test_add_option_refuses_an_id_whose_counter_exists(store):
    """A stray counter with the option's name (from an earlier poll of that id) is not taken over."""
    store.create_poll(LUNCH)
    store.define_counter(CounterDefinition(name="lunch.pie", kind="votes"))
    with pytest.raises(Conflict, match=r"counter named 'lunch\.pie' exists"):
        store.add_poll_option("lunch", PollOption("pie", "Pie"))
    assert [option.id for option in store.get_poll("lunch").options] == ["soup", "salad"]


def test_close_and_reopen_are_conditional(store):
    store.create_poll(LUNCH)
    assert store.set_poll_closed("lunch", closed=True).closed is True
    assert store.get_poll("lunch").closed is True
    with pytest.raises(Conflict, match="already closed"):
        store.set_poll_closed("lunch", closed=True)
    assert store.set_poll_closed("lunch", closed=False).closed is False
    with pytest.raises(Conflict, match="already open"):
        store.set_poll_closed("lunch", closed=False)
    with pytest.raises(UnknownCounter):
        store.set_poll_closed("ghost", closed=True)
