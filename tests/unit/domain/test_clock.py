"""The site's days: local midnight to local midnight in its time zone, 23 to 25 hours long."""

from __future__ import annotations

from datetime import UTC, date, datetime
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest

from counters.domain.clock import day_in, day_of, days_up_to, local_iso


def utc(text: str) -> int:
    """Epoch seconds of an ISO 8601 UTC time."""
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


@pytest.mark.parametrize(
    ("zone", "day", "starts_utc", "hours"),
    [
        ("UTC", date(2026, 11, 25), "2026-11-25T00:00", 24),
        ("America/St_Johns", date(2026, 11, 25), "2026-11-25T03:30", 24),  # UTC-3:30
        ("Pacific/Chatham", date(2026, 11, 25), "2026-11-24T10:15", 24),  # UTC+13:45
        ("Pacific/Auckland", date(2026, 9, 27), "2026-09-26T12:00", 23),  # clocks go forward at 02:00
        ("Pacific/Auckland", date(2026, 4, 5), "2026-04-04T11:00", 25),  # and back at 03:00
        ("America/Santiago", date(2026, 9, 6), "2026-09-06T04:00", 23),  # no 00:00: the day starts at 01:00
        ("America/Havana", date(2026, 3, 8), "2026-03-08T05:00", 23),  # the same at 00:00
    ],
)
def test_a_day_runs_from_local_midnight_to_the_next(zone, day, starts_utc, hours):
    found = day_in(ZoneInfo(zone), day)
    assert found.start == utc(starts_utc)
    assert found.end - found.start == hours * 3600
    assert day_of(found.start, ZoneInfo(zone)) == found
    assert day_of(found.end - 1, ZoneInfo(zone)) == found
    assert day_of(found.end, ZoneInfo(zone)).date > day


def test_either_side_of_a_half_hour_midnight_are_two_days():
    zone = ZoneInfo("America/St_Johns")
    before, after = day_of(utc("2026-11-25T03:29:59"), zone), day_of(utc("2026-11-25T03:30"), zone)
    assert (before.date, after.date) == (date(2026, 11, 24), date(2026, 11, 25))
    assert before.end == after.start


def test_days_up_to_are_consecutive_and_end_with_today():
    zone = ZoneInfo("Pacific/Auckland")
    days = days_up_to(utc("2026-09-27T10:00"), zone, count=3)  # 22:00 in Auckland, the short day
    assert [d.date for d in days] == [date(2026, 9, 25), date(2026, 9, 26), date(2026, 9, 27)]
    assert all(a.end == b.start for a, b in pairwise(days))
    assert local_iso(days[-1].start, zone) == "2026-09-27T00:00:00+12:00"
