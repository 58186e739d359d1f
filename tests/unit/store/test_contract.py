"""The store contract, run against DynamoDB Local and (single-threaded) against moto."""

from __future__ import annotations

import boto3
import pytest
from moto import mock_aws

from counters.domain.values import CounterDefinition, PollDefinition, PollOption
from counters.exceptions import UnknownCounter
from counters.store.dynamodb.backend import DynamoCounterStore


@pytest.fixture
def moto_store():
    """The DynamoDB store against moto's in-process mock (fast, single-threaded only)."""
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        store = DynamoCounterStore(client=client, table="contract")
        store.ensure_table()
        yield store


@pytest.fixture(params=["dynamodb-local", "moto"])
def any_store(request):
    """Every backend the contract must hold for."""
    if request.param == "moto":
        return request.getfixturevalue("moto_store")
    return request.getfixturevalue("store")


def define(store, name="home", **kwargs):
    store.define_counter(CounterDefinition(name=name, kind=kwargs.pop("kind", "views"), **kwargs))


def test_increment_returns_new_total_and_version(any_store):
    define(any_store)
    first = any_store.increment("home", kind="views")
    second = any_store.increment("home", kind="views")
    assert (first.value, first.version) == (1, 1)
    assert (second.value, second.version) == (2, 2)
    assert any_store.get("home").value == 2


def test_first_write_starts_from_start_value_and_adds_step(any_store):
    define(any_store, "carried", start=1000, step=5)
    assert any_store.get("carried").value == 1000
    assert any_store.increment("carried", kind="views").value == 1005
    assert any_store.increment("carried", kind="views", by=2).value == 1007


def test_unknown_counter_is_refused_and_writes_nothing(any_store):
    with pytest.raises(UnknownCounter):
        any_store.increment("ghost", kind="views")
    with pytest.raises(UnknownCounter):
        any_store.get("ghost")
    assert any_store.counter_names() == []


def test_view_cannot_touch_a_vote_counter(any_store):
    define(any_store, "poll.yes", kind="votes")
    with pytest.raises(UnknownCounter):
        any_store.increment("poll.yes", kind="views")
    assert any_store.get("poll.yes").value == 0


def test_define_is_idempotent_and_keeps_the_count(any_store):
    define(any_store)
    any_store.increment("home", kind="views")
    assert any_store.define_counter(CounterDefinition(name="home", kind="views", start=50)) is False
    assert any_store.get("home").value == 1


def test_listing_reads_every_counter_in_batches(any_store):
    names = [f"page-{i:03d}" for i in range(130)]
    for name in names:
        define(any_store, name)
    any_store.increment("page-129", kind="views")
    listed = any_store.list_counters()
    assert [state.name for state in listed] == names
    assert listed[-1].value == 1 and listed[0].value == 0


def test_polls_register_a_votes_counter_per_option(any_store):
    poll = PollDefinition(
        id="lang", question="Which?", options=(PollOption("py", "Python"), PollOption("go", "Go"))
    )
    assert any_store.define_poll(poll) is True
    assert any_store.define_poll(poll) is False
    assert any_store.get_poll("lang") == poll
    assert [p.id for p in any_store.list_polls()] == ["lang"]
    assert {s.name: s.kind for s in any_store.list_counters()} == {"lang.go": "votes", "lang.py": "votes"}
    with pytest.raises(UnknownCounter):
        any_store.get_poll("nope")
