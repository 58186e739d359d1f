"""Counter services on the memory store: a counted view, a hot counter, a conditional reset."""

from __future__ import annotations

import time

import pytest

from counters import selectors, services
from counters.background import history_writer, hot_settler
from counters.domain.buckets import MINUTE
from counters.exceptions import InvalidInput, UnknownCounter, VersionConflict


def test_a_view_is_counted_and_its_new_total_pushed(memory_demo_store, published):
    services.view_record(slug="welcome")
    state = services.view_record(slug="welcome")
    assert (state.value, state.version) == (2, 2)
    assert published == [("welcome", 1, 1), ("welcome", 2, 2)]


def test_a_view_lands_in_the_history_of_its_minute(memory_demo_store, published):
    services.view_record(slug="docs")
    history_writer.flush()
    minute = MINUTE.key(MINUTE.start_of(time.time()))
    assert memory_demo_store.read_buckets("docs", first=minute, last=minute) == {minute: 1}


def test_a_view_of_an_unknown_or_malformed_page_counts_nothing(memory_demo_store, published):
    with pytest.raises(UnknownCounter):
        services.view_record(slug="ghost")
    with pytest.raises(InvalidInput):
        services.view_record(slug="Not a slug")
    assert published == []
    assert "ghost" not in memory_demo_store.counter_names()


def test_a_hot_counter_keeps_its_count_and_settles_to_the_exact_total(memory_demo_store, published):
    services.view_record(slug="welcome")
    assert services.counter_make_hot(name="welcome", shards=4).value == 1
    for _ in range(3):
        services.view_record(slug="welcome")
    hot_settler.settle()  # a background round may have settled first: either pushes the exact total
    assert published[-1] == ("welcome", 4, 4)


def test_a_reset_at_the_seen_version_zeroes_and_pushes(memory_demo_store, published):
    services.view_record(slug="welcome")
    state = services.counter_reset(name="welcome", expected_version=1, actor="ada", reason="test traffic")
    assert (state.value, state.version) == (0, 2)
    assert published[-1] == ("welcome", 0, 2)
    [record] = selectors.counter_resets(name="welcome")
    assert (record.actor, record.reason, record.old_value) == ("ada", "test traffic", 1)


def test_a_reset_at_a_stale_version_tells_the_current_total_and_pushes_nothing(memory_demo_store, published):
    services.view_record(slug="welcome")
    services.view_record(slug="welcome")
    with pytest.raises(VersionConflict) as caught:
        services.counter_reset(name="welcome", expected_version=1, actor="ada", reason="stale")
    assert (caught.value.current.value, caught.value.current.version) == (2, 2)
    assert published == [("welcome", 1, 1), ("welcome", 2, 2)]
    assert selectors.counter_resets(name="welcome") == []
