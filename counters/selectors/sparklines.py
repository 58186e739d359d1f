"""The dashboard's small trends in one read: each page's views per minute over the last hour and unique
visitors per day over the last 90 days, for many pages at once (one request per dashboard load)."""

from __future__ import annotations

from counters.exceptions import InvalidInput
from counters.runtime import runtime
from counters.selectors.history import CounterHistory, counter_history

# A dashboard shows its top 50 pages: a batch names at most this many in each series.
MAX_NAMES = 100


def sparklines(
    *, views: list[str], visitors: list[str], now: float | None = None
) -> dict[str, list[CounterHistory]]:
    """The last hour by minute of each of `views`, the last 90 days by day of each of `visitors`.

    A page name that is no counter gets an empty series (a page the table showed may be gone), not a 404.
    """
    if len(views) > MAX_NAMES or len(visitors) > MAX_NAMES:
        raise InvalidInput(f"Ask for at most {MAX_NAMES} names in each series.")
    # Pages only: a poll option's history answers to the poll's rules, at its own address.
    if any("." in name for name in views + visitors):
        raise InvalidInput(
            "Sparklines are of pages; read a poll option's history at /api/counters/<name>/history."
        )
    now = runtime().clock.time() if now is None else now
    return {
        "views": [
            counter_history(name=name, window="1h", step="1m", now=now, known=True) for name in unique(views)
        ],
        "visitors": [
            counter_history(name=name, window="90d", step="1d", series="visitors", now=now, known=True)
            for name in unique(visitors)
        ],
    }


def unique(names: list[str]) -> list[str]:
    """The names in their first order, each once."""
    return list(dict.fromkeys(names))
