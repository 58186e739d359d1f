"""The dashboard's headline numbers: views today and in the last hour per page, votes, the busiest page."""

from __future__ import annotations

from dataclasses import dataclass

from counters.domain.buckets import MINUTE
from counters.domain.clock import Day
from counters.domain.values import CounterState
from counters.runtime import runtime
from counters.selectors.history import views_on
from counters.selectors.polls import PollTotals
from counters.store import get_store


@dataclass(frozen=True)
class PageTraffic:
    """A view counter with its views since the site's midnight and in the last sixty minutes."""

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
        """Views of every page since the site's midnight (its TIME_ZONE)."""
        return sum(page.today for page in self.pages)

    @property
    def views_last_hour(self) -> int:
        """Views of every page in the last sixty minutes, this one included."""
        return sum(page.last_hour for page in self.pages)

    @property
    def busiest(self) -> str | None:
        """The page with the most views today (then in the last hour, then in all), if any."""
        ranked = sorted(self.pages, key=lambda p: (p.today, p.last_hour, p.state.value), reverse=True)
        return ranked[0].state.name if ranked else None


def page_traffic(*, state: CounterState, now: float, today: Day) -> PageTraffic:
    """One page's views today (its day bucket) and in the last hour (minute buckets)."""
    this_minute = MINUTE.start_of(now)
    first_minute = this_minute - 59 * MINUTE.seconds
    hour = get_store().read_buckets(state.name, first=MINUTE.key(first_minute), last=MINUTE.key(this_minute))
    return PageTraffic(state=state, today=views_on(state.name, today, now=now), last_hour=sum(hour.values()))


def overview(*, counters: list[CounterState], polls: list[PollTotals], now: float | None = None) -> Overview:
    """Headline numbers over the counters and polls a page already read, busiest page first."""
    clock = runtime().part("clock")
    now = clock.time() if now is None else now
    today = clock.today(now)
    pages = [page_traffic(state=state, now=now, today=today) for state in counters if state.kind == "views"]
    pages.sort(key=lambda p: (p.today, p.state.value), reverse=True)
    return Overview(
        pages=tuple(pages),
        votes=sum(poll.total_votes for poll in polls),
        polls=len(polls),
    )
