"""Preparing the store: the table once, the demo content only when asked and only once."""

from __future__ import annotations

from counters.services.setup import store_prepare


def test_preparing_seeds_the_demo_only_when_asked_and_once(memory_store):
    assert store_prepare(demo=False).demo_added == 0
    assert memory_store.counter_names() == []
    first = store_prepare(demo=True)
    assert (first.table_created, first.demo_added) == (False, 6)  # the fixture created the table
    assert store_prepare(demo=True).demo_added == 0
    assert [poll.id for poll in memory_store.list_polls()] == ["deploy", "language"]
