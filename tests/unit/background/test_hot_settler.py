"""Pushed totals of hot counters settle on the exact sum, however stale a process's own view was."""

from __future__ import annotations

import pytest

from counters import services
from counters.background import hot_settler as hot
from counters.domain.values import CounterDefinition
from tests.support.live import RecordingBroadcaster
from tests.support.stores import other_process


@pytest.fixture
def broadcaster(process_runtime, store) -> RecordingBroadcaster:
    """What the services and the settler publish; the settler's background round never runs in a test."""
    recording = process_runtime.give("broadcaster", RecordingBroadcaster())
    process_runtime.give("hot_settler", hot.Settler(store, publish=recording.publish, interval=3600))
    return recording


def test_settled_push_carries_the_exact_sum(store, broadcaster):
    pushed = broadcaster.states
    store.define_counter(CounterDefinition(name="viral", kind="views", shards=4))
    hot.settle()
    services.view_record(slug="viral")
    elsewhere = other_process(store)  # another worker writing the same counter
    for _ in range(5):
        elsewhere.increment("viral", kind="views")
    quick = services.view_record(slug="viral")
    # The immediate answer counts this write but not yet the other worker's newest ones.
    assert quick.value < 7 and quick.version < 7
    settled = hot.settle()
    assert [(state.name, state.value, state.version) for state in settled] == [("viral", 7, 7)]
    assert pushed[-1] == settled[-1]
    assert max(state.version for state in pushed) == 7
    assert hot.settle() == [], "nothing written since: nothing to read"


def test_plain_counters_are_never_settled(store, broadcaster):
    store.define_counter(CounterDefinition(name="calm", kind="views"))
    hot.settle()
    services.view_record(slug="calm")
    assert hot.settle() == []


def test_api_lists_the_summed_value_of_a_hot_counter(client, store, broadcaster):
    store.define_counter(CounterDefinition(name="viral", kind="views", start=10, shards=4))
    other = other_process(store)
    for _ in range(6):
        other.increment("viral", kind="views")
    listed = {c["name"]: c for c in client.get("/api/counters").json()["counters"]}
    assert (listed["viral"]["value"], listed["viral"]["version"]) == (16, 6)
    one = client.get("/api/counters/viral").json()
    assert (one["value"], one["version"]) == (16, 6)
