"""Days in the site's time zone: "today", the 90-day chart's days and unique visitors, on both stores.

Each test holds the clock in a zone whose midnight is not a UTC one (St. John's is UTC-3:30,
Auckland UTC+12/+13) and checks that views and visitors either side of local midnight land on
their own days, also on a 23-hour day. Times are days ahead, so no item has expired in DynamoDB Local.
"""

from __future__ import annotations

import time
from zoneinfo import ZoneInfo

import pytest

from counters import selectors, services
from counters.background.history_writer import HistoryRecorder
from counters.domain.buckets import HOUR
from counters.domain.clock import Clock, day_in, day_of
from counters.domain.visitors import Client
from tests.support.tiers import ON_DYNAMODB

BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"


class StillClock(Clock):
    """A clock in `zone` that reads `now`, always."""

    def __init__(self, zone: str, now: float) -> None:
        super().__init__(ZoneInfo(zone))
        self.now = now

    def time(self) -> float:
        return self.now


@pytest.fixture(params=["memory_demo_store", pytest.param("demo_store", marks=ON_DYNAMODB)])
def any_store(request):
    """The memory store and DynamoDB Local, each with the demo counters."""
    return request.getfixturevalue(request.param)


def held_at(process_runtime, zone: str, now: float) -> StillClock:
    """The runtime's clock, held in `zone` at `now`."""
    return process_runtime.give("clock", StillClock(zone, now))


def views(store, zone: str, at: dict[float, int]) -> None:
    """Write views of `docs` the way the history writer does: `{epoch second: views}`."""
    recorder = HistoryRecorder(store, interval=3600, zone=ZoneInfo(zone))
    for moment, count in at.items():
        recorder.record(name="docs", count=count, at=moment)
    recorder.flush()


def counts(now: float, *, window: str, step: str, series: str = "views") -> dict:
    """The history of `docs` as the JSON API answers it."""
    return selectors.counter_history(name="docs", window=window, step=step, series=series, now=now).as_dict()


def test_views_either_side_of_a_half_hour_midnight_are_on_their_own_days(any_store, process_runtime):
    zone = "America/St_Johns"
    day = day_of(time.time() + 3 * 86400, ZoneInfo(zone))  # local midnight is hh:30 UTC
    now = day.start + 8 * 3600
    held_at(process_runtime, zone, now)
    views(any_store, zone, {day.start - 600: 2, day.start + 600: 3, now: 1})

    by_day = counts(now, window="90d", step="1d")
    assert (by_day["time_zone"], len(by_day["points"])) == (zone, 90)
    assert [p["count"] for p in by_day["points"][-2:]] == [2, 4]
    assert by_day["points"][-1]["start"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(day.start))
    assert by_day["points"][-1]["start"].endswith(":30:00Z")
    by_hour = counts(now, window="90d", step="1h")
    assert by_hour["total"] == by_day["total"] == 6, "UTC hours hold the same views"

    overview = selectors.overview(counters=any_store.list_counters(), polls=[], now=now)
    docs = next(page for page in overview.pages if page.state.name == "docs")
    assert docs.today == 4, "today began at local midnight, not at a UTC hour"


def test_a_23_hour_day_is_one_point_and_today_follows_it(any_store, process_runtime):
    zone = ZoneInfo("Pacific/Auckland")
    short = next(  # the next day whose clocks go forward (late September)
        d
        for d in (day_of(time.time() + n * 86400, zone) for n in range(2, 400))
        if d.end - d.start == 23 * 3600
    )
    following = day_in(zone, short.date.fromordinal(short.date.toordinal() + 1))
    now = following.start + 3600
    held_at(process_runtime, "Pacific/Auckland", now)
    views(
        any_store, "Pacific/Auckland", {short.start + 1800: 5, short.end - 1800: 6, following.start + 600: 7}
    )

    by_day = counts(now, window="90d", step="1d")
    assert [p["count"] for p in by_day["points"][-2:]] == [11, 7]
    assert by_day["end"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(following.end))
    overview = selectors.overview(counters=any_store.list_counters(), polls=[], now=now)
    assert overview.views_today == 7


def test_a_visitor_either_side_of_local_midnight_counts_on_both_days(any_store, process_runtime):
    zone = "Pacific/Auckland"
    day = day_of(time.time() + 3 * 86400, ZoneInfo(zone))
    held_at(process_runtime, zone, day.start + 3600)
    person = Client(address="198.51.100.7", user_agent=BROWSER)
    for moment in (day.start - 60, day.start - 30, day.start + 60, day.start + 90):
        services.view_record(slug="docs", client=person, at=moment)

    by_day = counts(day.start + 3600, window="90d", step="1d", series="visitors")
    assert [p["count"] for p in by_day["points"][-2:]] == [1, 1]
    assert (
        selectors.with_visitors_today(any_store.get_many(["docs"]), now=day.start + 3600)[0].visitors_today
        == 1
    )
    yesterday = selectors.with_visitors_today(any_store.get_many(["docs"]), now=day.start - 1)
    assert yesterday[0].visitors_today == 1


def test_days_written_before_day_buckets_are_read_from_their_hours(memory_demo_store, process_runtime):
    zone = "Pacific/Auckland"
    day = day_of(time.time(), ZoneInfo(zone))
    held_at(process_runtime, zone, day.start + 5 * 3600)
    yesterday_hour = HOUR.start_of(day.start - 1)
    memory_demo_store.add_to_bucket(
        "docs", HOUR.key(yesterday_hour), 9, expires_at=yesterday_hour + 99 * 86400
    )
    memory_demo_store.add_to_bucket("docs", HOUR.key(day.start), 4, expires_at=day.start + 99 * 86400)
    by_day = counts(day.start + 5 * 3600, window="90d", step="1d")
    assert [p["count"] for p in by_day["points"][-2:]] == [9, 4]

    views(memory_demo_store, zone, {day.start + 3600: 2})  # today's first view written with its day bucket
    by_day = counts(day.start + 5 * 3600, window="90d", step="1d")
    assert [p["count"] for p in by_day["points"][-2:]] == [9, 2], (
        "the day bucket, once there, is the day's count"
    )
