"""The page the dashboard's chart opens on: one with views today, never one with carried-over views only."""

from __future__ import annotations

import time

from counters import selectors
from counters.background.history_writer import HistoryRecorder


def overview():
    return selectors.overview(counters=selectors.counter_list(), polls=[])


def test_no_page_viewed_yet_is_no_busiest_page_even_with_views_carried_over(memory_demo_store):
    assert memory_demo_store.get("pricing").value == 1000, "the demo's pricing starts at 1,000"
    assert overview().busiest is None


def test_the_page_with_views_today_wins_over_a_larger_total(memory_demo_store):
    recorder = HistoryRecorder(memory_demo_store)
    recorder.record(name="docs", count=2, at=time.time() - 60)
    recorder.record(name="welcome", count=1, at=time.time() - 60)
    recorder.flush()
    assert overview().busiest == "docs"


def test_the_dashboard_opens_its_chart_on_that_page_or_says_none_is_viewed_yet(memory_demo_store, client):
    quiet = client.get("/").content.decode()
    assert "No page has been viewed today yet" in quiet
    recorder = HistoryRecorder(memory_demo_store)
    recorder.record(name="docs", count=3, at=time.time() - 60)
    recorder.flush()
    busy = client.get("/").content.decode()
    assert '<option value="docs" selected>' in busy and "No page has been viewed today yet" not in busy
