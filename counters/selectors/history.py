"""Reads of a counter's history: views per bucket, or unique visitors per day, over a window, zero-filled."""

from __future__ import annotations

import time
from dataclasses import dataclass

from counters.domain.buckets import Window, iso, series_window
from counters.domain.names import validate_counter_name
from counters.store import get_store


@dataclass(frozen=True)
class CounterHistory:
    """Views (or unique visitors) per bucket over a chart window, oldest first, empty buckets as 0."""

    name: str
    window: Window
    starts: tuple[int, ...]
    counts: tuple[int, ...]
    series: str = "views"

    def as_dict(self) -> dict:
        """Serialise for the JSON API."""
        return {
            "name": self.name,
            "series": self.series,
            "window": self.window.name,
            "resolution": self.window.resolution.name,
            "bucket_seconds": self.window.resolution.seconds,
            "total": sum(self.counts),
            "points": [
                {"start": iso(start), "count": count}
                for start, count in zip(self.starts, self.counts, strict=True)
            ],
        }


def counter_history(
    *, name: str, window: str | None, series: str = "views", now: float | None = None
) -> CounterHistory:
    """A counter's views per minute or hour over `window` (1h, 48h, 90d), zero-filled.

    `series="visitors"`: its unique visitors per UTC day over the last 90 days (window 90d).
    """
    name = validate_counter_name(name)
    chosen = series_window(series, window)
    store = get_store()
    store.get(name)  # unknown counters are a 404, not an empty chart
    resolution = chosen.resolution
    starts = chosen.starts(time.time() if now is None else now)
    found = store.read_buckets(name, first=resolution.key(starts[0]), last=resolution.key(starts[-1]))
    counts = tuple(found.get(resolution.key(start), 0) for start in starts)
    return CounterHistory(name=name, window=chosen, starts=tuple(starts), counts=counts, series=series)
