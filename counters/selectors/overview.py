"""The dashboard's headline numbers: views today and in the last hour per page, visitors, votes, bots.

The dashboard's own loads are counted apart (DASHBOARD_COUNTER): they are not traffic of the site, so
they are in no page row and no headline sum, only in `dashboard_today`.
"""

from __future__ import annotations

from dataclasses import dataclass

from counters.domain.buckets import HOUR, MINUTE, STEPS, Resolution
from counters.domain.names import DASHBOARD_COUNTER, SITE_VISITORS
from counters.domain.values import CounterState
from counters.domain.visitors import visit_day
from counters.runtime import runtime
from counters.selectors.polls import PollTotals
from counters.store import get_store

DAY = STEPS["1d"]


@dataclass(frozen=True)
class PageTraffic:
    """A view counter with its views since midnight UTC and in the last sixty minutes."""

    state: CounterState
    today: int
    last_hour: int

    def as_dict(self) -> dict:
        """Serialise for the JSON API: the counter's state with its two periods."""
        return {**self.state.as_dict(), "today": self.today, "last_hour": self.last_hour}


@dataclass(frozen=True)
class Overview:
    """What the dashboard shows first, from the history written so far and this process's tally."""

    pages: tuple[PageTraffic, ...]
    votes: int
    polls: int
    site_visitors: int = 0
    dashboard: PageTraffic | None = None
    day: str = ""

    @property
    def dashboard_today(self) -> int:
        """Loads of the dashboard today, counted apart from the pages' traffic."""
        return self.dashboard.today if self.dashboard else 0

    @property
    def views_today(self) -> int:
        """Views of every page since midnight UTC."""
        return sum(page.today for page in self.pages)

    @property
    def views_last_hour(self) -> int:
        """Views of every page in the last sixty minutes."""
        return sum(page.last_hour for page in self.pages)

    @property
    def bot_views(self) -> int:
        """Bot views of every page, all time."""
        return sum(page.state.bot_views for page in self.pages)

    @property
    def busiest(self) -> str | None:
        """The page with the most views today (then in the last hour, then in all), if any."""
        ranked = sorted(self.pages, key=lambda p: (p.today, p.last_hour, p.state.value), reverse=True)
        return ranked[0].state.name if ranked else None

    def as_dict(self) -> dict:
        """Serialise for the JSON API, busiest page first."""
        return {
            "day": self.day,
            "views_today": self.views_today,
            "views_last_hour": self.views_last_hour,
            "visitors_today": self.site_visitors,
            "bot_views": self.bot_views,
            "votes": self.votes,
            "polls": self.polls,
            "dashboard_today": self.dashboard_today,
            "dashboard": self.dashboard.as_dict() if self.dashboard else None,
            "pages": [page.as_dict() for page in self.pages],
        }


def views_since(name: str, resolution: Resolution, *, first: int, last: int) -> int:
    """Views of `name` in `resolution` buckets from `first` to `last`, written or tallied here."""
    written = get_store().read_buckets(name, first=resolution.key(first), last=resolution.key(last))
    return sum(written.values()) + runtime().part("history").tallied(name, resolution, since=first)


def page_traffic(*, state: CounterState, now: float) -> PageTraffic:
    """One page's views today (hour buckets) and in the last hour (minute buckets)."""
    this_hour, this_minute = HOUR.start_of(now), MINUTE.start_of(now)
    day = DAY.starts(now, points=1)[0]
    first_minute = this_minute - 59 * MINUTE.seconds
    return PageTraffic(
        state=state,
        today=views_since(state.name, HOUR, first=day, last=this_hour),
        last_hour=views_since(state.name, MINUTE, first=first_minute, last=this_minute),
    )


def overview(*, counters: list[CounterState], polls: list[PollTotals], now: float | None = None) -> Overview:
    """Headline numbers over the counters and polls a page already read, busiest page first."""
    now = runtime().part("clock").time() if now is None else now
    views = [state for state in counters if state.kind == "views"]
    pages = [page_traffic(state=state, now=now) for state in views if state.name != DASHBOARD_COUNTER]
    pages.sort(key=lambda p: (-p.today, -p.state.value, p.state.name))
    own = [page_traffic(state=state, now=now) for state in views if state.name == DASHBOARD_COUNTER]
    day = visit_day(now)
    return Overview(
        pages=tuple(pages),
        votes=sum(poll.total_votes for poll in polls),
        polls=len(polls),
        site_visitors=get_store().visitors_on([SITE_VISITORS], day=day).get(SITE_VISITORS, 0),
        dashboard=own[0] if own else None,
        day=day.key,
    )
