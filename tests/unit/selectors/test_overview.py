"""The dashboard's overview: views today counting what is not written yet, the dashboard's loads apart,
and the page its chart opens on (one with views today, never one with carried-over views only)."""

from __future__ import annotations

import re
import time

from counters import selectors, services
from counters.background.history_writer import HistoryRecorder
from counters.domain.visitors import Client


def person(i: int) -> Client:
    return Client(address=f"198.51.100.{i}", user_agent="Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0")


def overview():
    return selectors.overview(counters=selectors.counter_list(), polls=selectors.poll_list())


def test_views_not_written_yet_count_and_the_dashboard_is_apart(memory_demo_store):
    for i in range(3):
        services.view_record(slug="docs", client=person(i))
    services.view_record(slug="welcome", client=person(0))
    for _ in range(2):
        services.view_record(slug="dashboard", client=person(5))
    found = overview()  # the history writer has written nothing yet: its tally counts
    assert [page.state.name for page in found.pages] == ["docs", "welcome", "pricing"]
    assert (found.views_today, found.views_last_hour) == (4, 4)
    assert found.site_visitors == 3, "the dashboard's visitor is not the site's"
    assert found.dashboard_today == 2
    body = found.as_dict()
    assert body["pages"][0] | {"updated_at": None} == {
        **selectors.counter_detail(name="docs").as_dict(),
        "updated_at": None,
        "today": 3,
        "last_hour": 3,
    }
    assert (body["views_today"], body["visitors_today"], body["dashboard"]["today"]) == (4, 3, 2)


def test_a_view_of_yesterday_is_not_today(memory_demo_store):
    services.view_record(slug="docs", at=time.time() - 86400 - 3600)
    services.view_record(slug="docs")
    found = overview()
    assert found.pages[0].today == 1 and found.pages[0].state.value == 2


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
    assert re.search(r'<option value="docs"[^>]* selected>', busy)
    assert "No page has been viewed today yet" not in busy


def test_the_last_hour_by_minute_adds_up_to_its_views_and_rolls_past_an_hour(memory_demo_store):
    now = time.time()
    recorder = HistoryRecorder(memory_demo_store)
    recorder.record(name="docs", count=2, at=now - 600)
    recorder.record(name="welcome", count=1, at=now - 600)
    recorder.record(name="docs", count=5, at=now - 3700)  # over an hour ago: today, not the last hour
    recorder.flush()
    services.view_record(slug="welcome", client=person(1), at=now)  # tallied, not written yet: this minute
    found = selectors.overview(counters=selectors.counter_list(), polls=[], now=now)
    minutes = found.as_dict()["last_hour_minutes"]
    assert len(minutes["counts"]) == 60 and sum(minutes["counts"]) == found.views_last_hour == 4
    assert minutes["counts"][-1] == 1 and minutes["counts"][-11] == 3
    assert minutes["start"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(found.hour_start))
    assert found.hour_start == int(now // 60 * 60) - 59 * 60
