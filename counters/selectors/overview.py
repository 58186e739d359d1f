"""The dashboard's headline numbers: views today and in the last hour per page, visitors, votes, bots.

The dashboard's own loads are counted apart (DASHBOARD_COUNTER): they are not traffic of the site, so
they are in no page row and no headline sum, only in `dashboard_today`.
"""

from __future__ import annotations

from dataclasses import dataclass

from counters.domain.buckets import MINUTE, VIEW_DAYS, iso
from counters.domain.clock import Day
from counters.domain.names import DASHBOARD_COUNTER, SITE_VISITORS
from counters.domain.values import CounterState
from counters.domain.visitors import VisitDay
from counters.runtime import runtime
from counters.selectors.history import views_on
from counters.selectors.polls import PollTotals
from counters.store import get_store

HOUR_MINUTES = 60


@dataclass(frozen=True)
class PageTraffic:
    """A view counter with its views since the site's midnight and in the last sixty minutes."""

    state: CounterState
    today: int
    last_hour: int
    # The last hour's views per minute, oldest first (the minute `Overview.hour_start` first).
    minutes: tuple[int, ...] = ()

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
    hour_start: int = 0  # when the first of the last hour's sixty minutes began

    @property
    def hour_minutes(self) -> list[int]:
        """Views of every page in each of the last sixty minutes, oldest first."""
        totals = [0] * HOUR_MINUTES
        for page in self.pages:
            for i, count in enumerate(page.minutes):
                totals[i] += count
        return totals

    @property
    def dashboard_today(self) -> int:
        """Loads of the dashboard today, counted apart from the pages' traffic."""
        return self.dashboard.today if self.dashboard else 0

    @property
    def views_today(self) -> int:
        """Views of every page since the site's midnight (its TIME_ZONE)."""
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
        """The page with the most views today (then in the last hour); None while no page has any.

        Never ranked by all-time totals: a page carrying views counted elsewhere (`start`) has no
        history here, and the chart would open on an empty range.
        """
        ranked = sorted(self.pages, key=lambda p: (p.today, p.last_hour), reverse=True)
        return ranked[0].state.name if ranked and (ranked[0].today or ranked[0].last_hour) else None

    def as_dict(self) -> dict:
        """Serialise for the JSON API, busiest page first."""
        return {
            "day": self.day,
            "views_today": self.views_today,
            "views_last_hour": self.views_last_hour,
            "last_hour_minutes": {"start": iso(self.hour_start), "counts": self.hour_minutes},
            "visitors_today": self.site_visitors,
            "bot_views": self.bot_views,
            "votes": self.votes,
            "polls": self.polls,
            "dashboard_today": self.dashboard_today,
            "dashboard": self.dashboard.as_dict() if self.dashboard else None,
            "pages": [page.as_dict() for page in self.pages],
        }


def minute_counts(name: str, *, first_minute: int) -> tuple[int, ...]:
    """Views of `name` in each of the sixty minutes from `first_minute`, written or tallied here."""
    keys = [MINUTE.key(first_minute + i * MINUTE.seconds) for i in range(HOUR_MINUTES)]
    waiting = runtime().history.tallied_buckets(name, first=keys[0], last=keys[-1])
    written = get_store().read_buckets(name, first=keys[0], last=keys[-1])
    return tuple(written.get(key, 0) + waiting.get(key, 0) for key in keys)


def first_minute_of_hour(now: float) -> int:
    """The start of the first of the sixty minutes that end with the current one."""
    return MINUTE.start_of(now) - (HOUR_MINUTES - 1) * MINUTE.seconds


def page_traffic(*, state: CounterState, now: float, today: Day) -> PageTraffic:
    """One page's views today (its day bucket) and in the last hour (minute buckets), tallies included."""
    today_key = VIEW_DAYS.key(today)
    history = runtime().history
    # No flush between reading the tallies and the buckets: a view taken from the tally and not yet
    # written would be in neither, one written meanwhile in both.
    with history.steady():
        unwritten_today = history.tallied(state.name, first=today_key, last=today_key)
        minutes = minute_counts(state.name, first_minute=first_minute_of_hour(now))
        written_today = views_on(state.name, today, now=now)
    return PageTraffic(
        state=state,
        today=written_today + unwritten_today,
        last_hour=sum(minutes),
        minutes=minutes,
    )


def overview(*, counters: list[CounterState], polls: list[PollTotals], now: float | None = None) -> Overview:
    """Headline numbers over the counters and polls a page already read, busiest page first."""
    clock = runtime().clock
    now = clock.time() if now is None else now
    today = clock.today(now)
    views = [state for state in counters if state.kind == "views"]
    pages = [page_traffic(state=s, now=now, today=today) for s in views if s.name != DASHBOARD_COUNTER]
    pages.sort(key=lambda p: (-p.today, -p.state.value, p.state.name))
    own = [page_traffic(state=s, now=now, today=today) for s in views if s.name == DASHBOARD_COUNTER]
    day = VisitDay(today)
    return Overview(
        pages=tuple(pages),
        votes=sum(poll.total_votes for poll in polls),
        polls=len(polls),
        site_visitors=get_store().visitors_on([SITE_VISITORS], day=day).get(SITE_VISITORS, 0),
        dashboard=own[0] if own else None,
        day=day.key,
        hour_start=first_minute_of_hour(now),
    )
