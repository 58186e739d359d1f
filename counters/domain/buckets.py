"""Time buckets of the history: their keys, how long they are kept, and the chart windows over them."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime

from counters.domain.clock import Day
from counters.exceptions import InvalidInput


@dataclass(frozen=True)
class Resolution:
    """A bucket size: its sort key prefix and format, its length and how long DynamoDB keeps it."""

    name: str
    prefix: str
    key_format: str
    seconds: int
    keep_seconds: int

    def start_of(self, at: float) -> int:
        """Epoch second at which the bucket holding `at` starts."""
        return int(at) - int(at) % self.seconds

    def key(self, start: int) -> str:
        """Sort key of the bucket starting at `start` (UTC)."""
        return self.prefix + time.strftime(self.key_format, time.gmtime(start))

    def expires_at(self, start: int) -> int:
        """TTL of a bucket: kept for `keep_seconds` after it ends."""
        return start + self.seconds + self.keep_seconds


MINUTE = Resolution("minute", "M#", "%Y-%m-%dT%H:%M", 60, 48 * 3600)
HOUR = Resolution("hour", "H#", "%Y-%m-%dT%H", 3600, 90 * 86400)
RESOLUTIONS = (MINUTE, HOUR)


@dataclass(frozen=True)
class Step:
    """How much time one point of a chart sums: a whole number of stored buckets (a day: the site's day)."""

    name: str
    seconds: int

    def starts(self, now: float, *, points: int) -> list[int]:
        """Start of the last `points` steps up to the one holding `now`, oldest first (aligned in UTC)."""
        last = int(now) - int(now) % self.seconds
        return [last - self.seconds * (points - 1 - i) for i in range(points)]

    @property
    def by_day(self) -> bool:
        """Whether each point is one day of the site's calendar rather than a fixed span of seconds."""
        return self.seconds == 86400


STEPS = {step.name: step for step in (Step("1m", 60), Step("15m", 900), Step("1h", 3600), Step("1d", 86400))}


@dataclass(frozen=True)
class Window:
    """A chart window: the last `points` buckets of one resolution, the current one included."""

    name: str
    resolution: Resolution
    points: int

    @property
    def seconds(self) -> int:
        """How much time the window covers."""
        return self.points * self.resolution.seconds

    @property
    def default_step(self) -> Step:
        """One point per stored bucket."""
        return next(step for step in STEPS.values() if step.seconds == self.resolution.seconds)

    def starts(self, now: float) -> list[int]:
        """Start of every bucket in the window, oldest first."""
        last = self.resolution.start_of(now)
        step = self.resolution.seconds
        return [last - step * (self.points - 1 - i) for i in range(self.points)]

    def step_named(self, value: object) -> Step:
        """The step called `value` (the default if None), if it sums whole buckets and fits the window."""
        if value is None:
            return self.default_step
        step = STEPS.get(value) if isinstance(value, str) else None
        fits = [
            name
            for name, each in STEPS.items()
            if each.seconds % self.resolution.seconds == 0 and self.seconds % each.seconds == 0
        ]
        if step is None or step.name not in fits:
            raise InvalidInput(f"step for window {self.name} is one of {', '.join(fits)}.")
        return step


# Minute buckets are kept 48 h, hour buckets 90 days: each window reads the finest buckets still kept.
WINDOWS = {
    window.name: window
    for window in (
        Window("1h", MINUTE, 60),
        Window("24h", MINUTE, 24 * 60),
        Window("48h", MINUTE, 48 * 60),
        Window("90d", HOUR, 90 * 24),
    )
}


def window_named(value: object) -> Window:
    """Return the window called `value` or raise InvalidInput."""
    if not isinstance(value, str) or value not in WINDOWS:
        raise InvalidInput(f"window is one of {', '.join(WINDOWS)}.")
    return WINDOWS[value]


def iso(epoch: int) -> str:
    """An epoch second as ISO 8601 UTC with a Z, the format of bucket starts in the API."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# Days follow the site's time zone (counters.domain.clock), so their buckets are keyed by the local date,
# not by a UTC start. `DAY` only gives the `visitors` series its window and step.
DAY = Resolution("day", "D#", "%Y-%m-%d", 86400, 90 * 86400)
# Daily unique visitors over the last 90 days: the one window of the `visitors` history series.
VISITORS_WINDOW = Window("90d", DAY, 90)


@dataclass(frozen=True)
class DayBuckets:
    """Counts per day of the site's calendar: the sort key prefix and how long a day is kept after it ends."""

    prefix: str
    keep_seconds: int

    def key(self, day: Day) -> str:
        """Sort key of the day's bucket: the prefix and the local date (`V#2026-01-01`)."""
        return self.prefix + day.date.isoformat()

    def expires_at(self, day: Day) -> int:
        """TTL of the day's bucket."""
        return day.end + self.keep_seconds


# Unique visitors per day (written by the visitor count, beside the minute and hour buckets) and views
# per day (written by the history writer with every minute and hour bucket), each kept 90 days.
VISITOR_DAYS = DayBuckets("D#", 90 * 86400)
VIEW_DAYS = DayBuckets("V#", 90 * 86400)


def series_window(series: object, window: object) -> Window:
    """The window `window` (None: the series' default) of history series `views` or `visitors`."""
    if series == "views":
        return window_named("1h" if window is None else window)
    if series != "visitors":
        raise InvalidInput("series is views or visitors.")
    if window not in (None, VISITORS_WINDOW.name):
        raise InvalidInput(f"The visitors series has the window {VISITORS_WINDOW.name} only.")
    return VISITORS_WINDOW
