"""Hot (sharded) counters against DynamoDB Local: exact totals, conversion, listing, unknown names."""

from __future__ import annotations

import pytest

from counters.domain.values import CounterDefinition
from counters.exceptions import InvalidInput, UnknownCounter
from counters.store.dynamodb import schema
from tests.support.stores import PER_THREAD, THREADS, hammer, other_process, shard_values


def item_count(store) -> int:
    """How many items the table holds (a test-only Scan)."""
    return store.retrying.scan(TableName=store.table, Select="COUNT")["Count"]


def base_value(store, name: str) -> int:
    """What the TOTAL item itself holds (the base of a hot counter)."""
    key = schema.total_key(name)
    item = store.retrying.get_item(TableName=store.table, Key=key, ConsistentRead=True)["Item"]
    return schema.as_int(item.get("value"))


def test_sharded_counter_is_exact_under_threads(store):
    store.define_counter(CounterDefinition(name="viral", kind="views", shards=8))
    hammer(lambda: store.increment("viral", kind="views"))
    state = store.get("viral")
    assert state.value == THREADS * PER_THREAD
    # The summed version counts writes; increments that met in flight shared one (group commit).
    assert THREADS * PER_THREAD / THREADS <= state.version <= THREADS * PER_THREAD
    shards = shard_values(store, "viral")
    assert len(shards) == 8
    # Until a process has seen the counter it writes TOTAL (the base), which then tells it the shards.
    assert base_value(store, "viral") <= THREADS
    assert base_value(store, "viral") + sum(shards.values()) == THREADS * PER_THREAD
    # The writes really are spread: every shard took a share, none took them all.
    assert all(0 < value < THREADS * PER_THREAD for value in shards.values())
    listed = {state.name: state for state in store.list_counters()}
    assert listed["viral"].value == THREADS * PER_THREAD
    # A fresh process (knowing nothing yet) reads the same sum.
    assert other_process(store).get("viral").value == THREADS * PER_THREAD


def test_increments_return_growing_totals_and_versions(store):
    store.define_counter(CounterDefinition(name="hot", kind="views", start=100, shards=4))
    states = [store.increment("hot", kind="views") for _ in range(20)]
    assert [state.value for state in states] == list(range(101, 121))
    assert [state.version for state in states] == list(range(1, 21))
    assert store.get("hot").title == ""


def test_converting_keeps_the_count_and_the_version(store):
    store.define_counter(CounterDefinition(name="page", kind="views", title="Page", start=1000, step=2))
    for _ in range(5):
        store.increment("page", kind="views")
    before = store.get("page")
    assert (before.value, before.version) == (1010, 5)
    after = store.make_hot("page", shards=4)
    assert (after.value, after.version, after.title) == (1010, 5, "Page")
    assert store.increment("page", kind="views").value == 1012
    assert sum(shard_values(store, "page").values()) == 2, "the new write went to a shard"
    assert store.get("page").version == 6
    # Growing keeps it too; shrinking is refused.
    assert store.make_hot("page", shards=6).value == 1012
    assert len(shard_values(store, "page")) == 6
    with pytest.raises(InvalidInput):
        store.make_hot("page", shards=2)
    with pytest.raises(InvalidInput):
        store.make_hot("page", shards=1000)
    with pytest.raises(UnknownCounter):
        store.make_hot("ghost", shards=2)


def test_a_process_that_missed_the_conversion_still_counts_right(store):
    store.define_counter(CounterDefinition(name="page", kind="views"))
    stale = other_process(store)
    assert stale.increment("page", kind="views").value == 1  # it knows "page" as a plain counter
    store.make_hot("page", shards=4)
    for _ in range(3):
        store.increment("page", kind="views")
    # Its next write lands on TOTAL (the base), which reveals the shards; the answer is the sum.
    state = stale.increment("page", kind="views")
    assert (state.value, state.version) == (5, 5)
    assert stale.shard_count("page") == 4
    stale.increment("page", kind="views")
    assert sum(shard_values(store, "page").values()) == 4
    assert store.get("page").value == 6


def test_unknown_names_and_wrong_kinds_write_nothing(store):
    store.define_counter(CounterDefinition(name="poll.yes", kind="votes", shards=4))
    store.define_counter(CounterDefinition(name="hot", kind="views", shards=4))
    before = item_count(store)
    with pytest.raises(UnknownCounter):
        store.increment("poll.yes", kind="views")
    with pytest.raises(UnknownCounter):
        store.increment("ghost", kind="views")
    assert item_count(store) == before
    assert store.get("poll.yes").value == 0


def test_redeclaring_a_hot_counter_changes_nothing(store):
    definition = CounterDefinition(name="hot", kind="views", shards=3)
    assert store.define_counter(definition) is True
    store.increment("hot", kind="views")
    assert store.define_counter(definition) is False
    assert store.get("hot").value == 1
    with pytest.raises(InvalidInput):
        store.define_counter(CounterDefinition(name="huge", kind="views", shards=65))
    assert "huge" not in store.counter_names()


def test_another_process_sees_every_shard(store):
    store.define_counter(CounterDefinition(name="hot", kind="views", shards=4))
    second = other_process(store)
    for _ in range(10):
        store.increment("hot", kind="views")
        second.increment("hot", kind="views")
    assert store.get("hot").value == 20
    assert second.get("hot").version == 20
    assert [state.value for state in second.get_many(["hot"])] == [20]
