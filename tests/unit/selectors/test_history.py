"""History selector on the memory store: a window of buckets, oldest first, empty ones as 0."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from counters import selectors
from counters.domain.buckets import HOUR, MINUTE, VIEW_DAYS
from counters.domain.clock import Clock, day_of
from counters.exceptions import InvalidInput, UnknownCounter

NOW = 1_767_268_800 + 30  # 2026-01-01T12:00:30Z


def add(store, resolution, start: int, count: int) -> None:
    store.add_to_bucket("docs", resolution.key(start), count, expires_at=resolution.expires_at(start))


def test_the_last_hour_is_sixty_minutes_with_gaps_as_zero(memory_demo_store):
    this_minute = MINUTE.start_of(NOW)
    add(memory_demo_store, MINUTE, this_minute, 4)
    add(memory_demo_store, MINUTE, this_minute - 59 * 60, 2)
    add(memory_demo_store, MINUTE, this_minute - 60 * 60, 9)  # one minute before the window
    history = selectors.counter_history(name="docs", window="1h", now=NOW)
    assert len(history.counts) == 60
    assert history.starts[0] == this_minute - 59 * 60 and history.starts[-1] == this_minute
    assert (history.counts[0], history.counts[-1], sum(history.counts)) == (2, 4, 6)
    body = history.as_dict()
    assert (body["resolution"], body["total"], body["points"][-1]) == (
        "minute",
        6,
        {"start": "2026-01-01T12:00:00Z", "count": 4},
    )


def test_ninety_days_are_read_by_the_hour(memory_demo_store):
    add(memory_demo_store, HOUR, HOUR.start_of(NOW) - 3600, 7)
    add(memory_demo_store, MINUTE, MINUTE.start_of(NOW), 5)  # minute buckets are not part of it
    history = selectors.counter_history(name="docs", window="90d", now=NOW)
    assert len(history.counts) == 90 * 24
    assert history.counts[-2:] == (7, 0)


def test_history_of_an_unknown_counter_or_window_is_refused(memory_demo_store):
    with pytest.raises(UnknownCounter):
        selectors.counter_history(name="ghost", window="1h", now=NOW)
    with pytest.raises(InvalidInput):
        selectors.counter_history(name="docs", window="1y", now=NOW)


def test_a_step_sums_whole_buckets_aligned_in_utc(memory_demo_store):
    this_minute = MINUTE.start_of(NOW)  # 12:00
    add(memory_demo_store, MINUTE, this_minute, 4)  # in the 12:00 quarter
    add(memory_demo_store, MINUTE, this_minute - 60, 2)  # 11:59: the 11:45 quarter
    add(memory_demo_store, MINUTE, this_minute - 14 * 60, 1)  # 11:46: the 11:45 quarter too
    add(memory_demo_store, MINUTE, this_minute - 24 * 3600, 9)  # just before the 24 h window
    history = selectors.counter_history(name="docs", window="24h", step="15m", now=NOW)
    assert len(history.counts) == 96
    assert history.counts[-2:] == (3, 4) and sum(history.counts) == 7
    assert history.as_dict()["points"][-1] == {"start": "2026-01-01T12:00:00Z", "count": 4}
    assert (history.as_dict()["step"], history.as_dict()["bucket_seconds"]) == ("15m", 900)


def test_ninety_days_by_day_start_at_midnight_utc(memory_demo_store):
    add(memory_demo_store, HOUR, HOUR.start_of(NOW), 5)  # today, 12:00
    add(memory_demo_store, HOUR, HOUR.start_of(NOW) - 13 * 3600, 6)  # yesterday, 23:00
    history = selectors.counter_history(name="docs", window="90d", step="1d", now=NOW)
    assert len(history.counts) == 90
    assert history.counts[-2:] == (6, 5)
    assert history.as_dict()["points"][-1]["start"] == "2026-01-01T00:00:00Z"


def test_a_step_that_does_not_fit_the_window_is_refused(memory_demo_store):
    for window, step in [("90d", "1m"), ("90d", "15m"), ("1h", "1d"), ("1h", ""), ("1h", "2m")]:
        with pytest.raises(InvalidInput):
            selectors.counter_history(name="docs", window=window, step=step, now=NOW)


def test_an_hour_past_the_first_day_buckets_midnight_counts_once(memory_demo_store, process_runtime):
    """St. John's (UTC-3:30): the 03:00Z hour runs from 23:30 to 00:30 local. A view at 00:10 local is
    in that day's bucket and in that hour; the day before, read from hours, must not count it too."""
    zone = ZoneInfo("America/St_Johns")
    process_runtime.give("clock", Clock(zone))
    now = datetime(2026, 11, 28, 3, 40, tzinfo=UTC).timestamp()  # 00:10 local
    seen = now - 3 * 86400
    add(memory_demo_store, HOUR, HOUR.start_of(seen), 6)
    memory_demo_store.add_to_bucket("docs", VIEW_DAYS.key(day_of(seen, zone)), 6, expires_at=None)
    history = selectors.counter_history(name="docs", window="90d", step="1d", now=now)
    assert sum(history.counts) == 6
    assert history.counts[-4:] == (6, 0, 0, 0)
