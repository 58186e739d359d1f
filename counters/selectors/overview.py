"""The dashboard's headline numbers: views today and in the last hour per page, votes, the busiest page."""

from __future__ import annotations

import time
from dataclasses import dataclass

from counters.domain.buckets import HOUR, MINUTE, STEPS
from counters.domain.values import CounterState
from counters.selectors.polls import PollTotals
from counters.store import get_store

DAY = STEPS["1d"]


@dataclass(frozen=True)
class PageTraffic:
    """A view counter with its views since midnight UTC and in the last sixty minutes."""

    state: CounterState
    today: int
    last_hour: int


@dataclass(frozen=True)
class Overview:
    """What the dashboard shows first; counts come from the history, so they lag it by one flush."""

    pages: tuple[PageTraffic, ...]
    votes: int
    polls: int

    @property
    def views_today(self) -> int:
        """Views of every page since midnight UTC."""
        return sum(page.today for page in self.pages)

    @property
    def views_last_hour(self) -> int:
        """Views of every page in the last sixty minutes, this one included."""
        return sum(page.last_hour for page in self.pages)

    @property
    def busiest(self) -> str | None:
        """The page with the most views today (then in the last hour); None while no page has any.

        Never ranked by all-time totals: a page carrying views counted elsewhere (`start`) has no
        history here, and the chart would open on an empty range.
        """
        ranked = sorted(self.pages, key=lambda p: (p.today, p.last_hour), reverse=True)
        return ranked[0].state.name if ranked and (ranked[0].today or ranked[0].last_hour) else None


def page_traffic(*, state: CounterState, now: float) -> PageTraffic:
    """One page's views today (hour buckets) and in the last hour (minute buckets)."""
    store = get_store()
    this_hour, this_minute = HOUR.start_of(now), MINUTE.start_of(now)
    day = DAY.starts(now, points=1)[0]
    today = store.read_buckets(state.name, first=HOUR.key(day), last=HOUR.key(this_hour))
    first_minute = this_minute - 59 * MINUTE.seconds
    hour = store.read_buckets(state.name, first=MINUTE.key(first_minute), last=MINUTE.key(this_minute))
    return PageTraffic(state=state, today=sum(today.values()), last_hour=sum(hour.values()))


def overview(*, counters: list[CounterState], polls: list[PollTotals], now: float | None = None) -> Overview:
    """Headline numbers over the counters and polls a page already read, busiest page first."""
    now = time.time() if now is None else now
    pages = [page_traffic(state=state, now=now) for state in counters if state.kind == "views"]
    pages.sort(key=lambda p: (p.today, p.state.value), reverse=True)
    return Overview(
        pages=tuple(pages),
        votes=sum(poll.total_votes for poll in polls),
        polls=len(polls),
    )
