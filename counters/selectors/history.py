"""Reads of a counter's history: views per step, or unique visitors per day, over a window, zero-filled.

Steps shorter than a day are UTC spans of stored minute or hour buckets. A day step is one day of the
site's calendar (its TIME_ZONE): local midnight to local midnight, read from the day buckets.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from counters.domain.buckets import (
    HOUR,
    VIEW_DAYS,
    VISITOR_DAYS,
    DayBuckets,
    Step,
    Window,
    iso,
    series_window,
)
from counters.domain.clock import Day, days_up_to
from counters.domain.names import SITE_VISITORS, validate_counter_name
from counters.runtime import runtime
from counters.store import CounterStore, get_store


@dataclass(frozen=True)
class CounterHistory:
    """Views (or unique visitors) per step over a chart window, oldest first, empty steps as 0."""

    name: str
    window: Window
    step: Step
    starts: tuple[int, ...]
    counts: tuple[int, ...]
    series: str = "views"
    end: int = 0  # when the last step ends
    time_zone: str = "UTC"  # the site's zone, whose days the day steps are

    def as_dict(self) -> dict:
        """Serialise for the JSON API."""
        return {
            "name": self.name,
            "series": self.series,
            "window": self.window.name,
            "resolution": self.window.resolution.name,
            "step": self.step.name,
            "bucket_seconds": self.step.seconds,
            "time_zone": self.time_zone,
            "end": iso(self.end),
            "total": sum(self.counts),
            "points": [
                {"start": iso(start), "count": count}
                for start, count in zip(self.starts, self.counts, strict=True)
            ],
        }


def counter_history(
    *,
    name: str,
    window: str | None,
    step: str | None = None,
    series: str = "views",
    now: float | None = None,
    known: bool = False,
) -> CounterHistory:
    """A counter's views over `window` (1h, 24h, 48h, 90d) per `step` (default: per stored bucket).

    `series="visitors"`: its unique visitors per day over the last 90 days (window 90d). `known`: the
    caller vouches for the name (no read to answer an unknown one with a 404).
    """
    # The whole site has a history (every page's views, the site's visitors) and no counter of its own.
    site = name == SITE_VISITORS
    name = name if site else validate_counter_name(name)
    chosen = series_window(series, window)
    each = chosen.step_named(step)
    store = get_store()
    if not site and not known:
        store.get(name)  # unknown counters are a 404, not an empty chart
    clock = runtime().clock
    now = clock.time() if now is None else now
    if each.by_day:
        days = days_up_to(now, clock.zone, count=chosen.seconds // each.seconds)
        starts, end = [day.start for day in days], days[-1].end
        counts = day_counts(store, name, days, series=series, now=now)
    else:
        starts = each.starts(now, points=chosen.seconds // each.seconds)
        end = starts[-1] + each.seconds
        counts = step_counts(store, name, chosen, each, starts, now=now)
    return CounterHistory(
        name=name,
        window=chosen,
        step=each,
        starts=tuple(starts),
        counts=tuple(counts),
        series=series,
        end=end,
        time_zone=clock.zone_name,
    )


def step_counts(
    store: CounterStore, name: str, window: Window, step: Step, starts: list[int], *, now: float
) -> list[int]:
    """Views per UTC step: every stored bucket of the window lands in the step that holds it."""
    resolution = window.resolution
    current = resolution.start_of(now)
    found = store.read_buckets(name, first=resolution.key(starts[0]), last=resolution.key(current))
    counts = [0] * len(starts)
    for bucket in range(starts[0], current + 1, resolution.seconds):
        counts[(bucket - starts[0]) // step.seconds] += found.get(resolution.key(bucket), 0)
    return counts


def day_counts(store: CounterStore, name: str, days: list[Day], *, series: str, now: float) -> list[int]:
    """Views (or unique visitors) on each of `days` (consecutive days of the site, oldest first)."""
    buckets: DayBuckets = VISITOR_DAYS if series == "visitors" else VIEW_DAYS
    found = store.read_buckets(name, first=buckets.key(days[0]), last=buckets.key(days[-1]))
    counts = [found.get(buckets.key(day), 0) for day in days]
    # Days before the counter's first day bucket were written before day buckets existed: their views
    # come from the hour buckets (an hour counts in the day its start falls in, so to the hour where
    # the zone's offset is not whole hours). From the first day bucket on, a day without one had none.
    first = next((i for i, day in enumerate(days) if buckets.key(day) in found), len(days))
    if series == "views" and first:
        # An hour running past the first day bucket's midnight (a half-hour zone) holds views that
        # bucket counts already: it is left to that day, never counted twice.
        until = days[first].start if first < len(days) else None
        counts[:first] = hour_sums(store, name, days[:first], now=now, until=until)
    return counts


def hour_sums(
    store: CounterStore, name: str, days: list[Day], *, now: float, until: float | None = None
) -> list[int]:
    """Views of each day from the hour buckets whose start falls in it (and that end by `until`)."""
    end = days[-1].end if until is None else min(days[-1].end, until - HOUR.seconds + 1)
    first, last = HOUR.start_of(days[0].start), HOUR.start_of(min(now, end - 1))
    found = store.read_buckets(name, first=HOUR.key(first), last=HOUR.key(last))
    starts = [day.start for day in days]
    sums = [0] * len(days)
    for hour in range(first, last + 1, HOUR.seconds):
        at = bisect_right(starts, hour) - 1
        if at >= 0 and hour < days[at].end:
            sums[at] += found.get(HOUR.key(hour), 0)
    return sums


def views_on(name: str, day: Day, *, now: float) -> int:
    """Views of counter `name` on one day of the site (from its day bucket, as the 90-day chart reads it)."""
    return day_counts(get_store(), name, [day], series="views", now=now)[0]
