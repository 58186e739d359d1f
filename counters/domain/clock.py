"""The clock: the time now and the site's days (a runtime part, so a test can hold it still), `updated_at`.

Days follow the site's time zone (Django's TIME_ZONE): a day runs from one local midnight to the
next, which is 23, 24 or 25 hours across a daylight-saving change and need not start on a UTC hour
(St. John's is UTC-3:30, Chatham UTC+12:45).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from django.conf import settings


@dataclass(frozen=True)
class Day:
    """One calendar day in a time zone: its date and the epoch seconds at which it starts and ends."""

    date: date
    start: int
    end: int


def midnight(day: date, zone: ZoneInfo) -> int:
    """The epoch second at which `day` starts in `zone`."""
    # Where a zone skips midnight (clocks go from 23:59:59 to 01:00), fold=0 reads 00:00 with the offset
    # before the change: exactly the instant the day begins.
    return int(datetime(day.year, day.month, day.day, tzinfo=zone).timestamp())


def day_in(zone: ZoneInfo, day: date) -> Day:
    """The day `day` of `zone`, with its start and end."""
    return Day(date=day, start=midnight(day, zone), end=midnight(day + timedelta(days=1), zone))


def day_of(at: float, zone: ZoneInfo) -> Day:
    """The day of `zone` holding the epoch second `at`."""
    return day_in(zone, datetime.fromtimestamp(at, zone).date())


def days_up_to(at: float, zone: ZoneInfo, *, count: int) -> list[Day]:
    """The last `count` days of `zone`, the one holding `at` last."""
    last = datetime.fromtimestamp(at, zone).date()
    return [day_in(zone, last - timedelta(days=count - 1 - i)) for i in range(count)]


def local_iso(epoch: int, zone: ZoneInfo) -> str:
    """An epoch second as ISO 8601 in `zone`, with its offset (`2026-01-01T00:00:00+13:00`)."""
    return datetime.fromtimestamp(epoch, zone).isoformat()


class Clock:
    """The time now, in seconds since the epoch, and the site's time zone that decides its days."""

    def __init__(self, zone: ZoneInfo | None = None) -> None:
        self.zone = zone or ZoneInfo("UTC")

    @classmethod
    def for_runtime(cls, process: object = None) -> Clock:
        """The wall clock, in the site's TIME_ZONE (moved by a file only under the test setting)."""
        zone = ZoneInfo(settings.TIME_ZONE or "UTC")
        moved_by = getattr(settings, "COUNTERS_TEST_CLOCK_FILE", "")
        return FileMovedClock(zone, Path(moved_by)) if moved_by else cls(zone)

    @property
    def zone_name(self) -> str:
        """The zone's IANA name (`Europe/Paris`)."""
        return self.zone.key

    def time(self) -> float:
        """Seconds since the epoch, now."""
        return time.time()

    def utc_now(self) -> datetime:
        """The time now, in UTC."""
        return datetime.fromtimestamp(self.time(), UTC)

    def iso_now(self) -> str:
        """The time now as stored: ISO 8601 in UTC with milliseconds (as `now_iso`)."""
        return self.utc_now().isoformat(timespec="milliseconds")

    def today(self, at: float | None = None) -> Day:
        """The site's day holding `at` (default: now)."""
        return day_of(self.time() if at is None else at, self.zone)

    async def sleep_until(self, at: float) -> None:
        """Return once the clock reads `at` (epoch seconds) or later."""
        await asyncio.sleep(max(0.0, at - self.time()))


class MovedClock(Clock):
    """The wall clock moved on by `offset()` seconds, which a test may change at any time."""

    # A sleeper looks at the clock this often, so a move forward wakes it at once, not at the wall time.
    LOOK_SECONDS = 0.05

    def offset(self) -> float:
        """Seconds this clock runs ahead of the wall clock."""
        return 0.0

    def time(self) -> float:
        """The wall clock's seconds plus the offset."""
        return time.time() + self.offset()

    async def sleep_until(self, at: float) -> None:
        """Return once the clock reads `at` or later, however it was moved meanwhile."""
        while (left := at - self.time()) > 0:
            await asyncio.sleep(min(left, self.LOOK_SECONDS))


class FileMovedClock(MovedClock):
    """A site started by a test (COUNTERS_TEST_CLOCK_FILE): ahead by the seconds the file holds (none: 0).

    Only the demo site's settings read that setting, and its production settings refuse it: no request
    can move a clock; the test that started the process writes the file."""

    def __init__(self, zone: ZoneInfo, path: Path) -> None:
        super().__init__(zone)
        self.path = path

    def offset(self) -> float:
        """The seconds in the file, 0 while there is none."""
        try:
            return float(self.path.read_text() or 0)
        except FileNotFoundError:
            return 0.0


def now_iso() -> str:
    """Current UTC time as ISO 8601 with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")
