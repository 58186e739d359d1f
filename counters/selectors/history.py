"""Reads of a counter's history: views per step, or unique visitors per day, over a window, zero-filled."""

from __future__ import annotations

from dataclasses import dataclass

from counters.domain.buckets import Step, Window, iso, series_window
from counters.domain.names import SITE_VISITORS, validate_counter_name
from counters.runtime import runtime
from counters.store import get_store


@dataclass(frozen=True)
class CounterHistory:
    """Views (or unique visitors) per step over a chart window, oldest first, empty steps as 0."""

    name: str
    window: Window
    step: Step
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
            "step": self.step.name,
            "bucket_seconds": self.step.seconds,
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
) -> CounterHistory:
    """A counter's views over `window` (1h, 24h, 48h, 90d) per `step` (default: per stored bucket).

    `series="visitors"`: its unique visitors per UTC day over the last 90 days (window 90d).
    """
    # The whole site has a history (every page's views, the site's visitors) and no counter of its own.
    site = name == SITE_VISITORS
    name = name if site else validate_counter_name(name)
    chosen = series_window(series, window)
    each = chosen.step_named(step)
    store = get_store()
    if not site:
        store.get(name)  # unknown counters are a 404, not an empty chart
    now = runtime().part("clock").time() if now is None else now
    resolution = chosen.resolution
    starts = each.starts(now, points=chosen.seconds // each.seconds)
    current = resolution.start_of(now)
    found = store.read_buckets(name, first=resolution.key(starts[0]), last=resolution.key(current))
    counts = [0] * len(starts)
    # Every stored bucket of the window lands in the step that holds it.
    for bucket in range(starts[0], current + 1, resolution.seconds):
        counts[(bucket - starts[0]) // each.seconds] += found.get(resolution.key(bucket), 0)
    return CounterHistory(
        name=name, window=chosen, step=each, starts=tuple(starts), counts=tuple(counts), series=series
    )
