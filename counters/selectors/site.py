"""Reads of the whole site: top pages and sources of a day, a page's sources, rows for CSV.

Counts are the store's tallies (counters/store/base.py `read_tally`) plus what this process has
tallied and not written yet, so a view is in the answer of the process that counted it at once; other
workers' views arrive with their next flush (about a second).
"""

from __future__ import annotations

from dataclasses import dataclass

from counters.background.tally_writer import tally_writer
from counters.domain.clock import days_up_to
from counters.domain.names import validate_counter_name
from counters.domain.page_rules import PAGES_GROUP, SITE, PageBudget, sources_group
from counters.domain.visitors import VisitDay, visit_day
from counters.exceptions import InvalidInput
from counters.runtime import runtime
from counters.store import get_store

MAX_DAYS = 90
TOP = 10


@dataclass(frozen=True)
class Ranked:
    """A page or a source with its views; a page also with its title and where it lives."""

    key: str
    views: int
    title: str = ""
    address: str = ""

    def as_dict(self, field: str) -> dict:
        """Serialise for the JSON API, the key under `field` ("name" or "source")."""
        data = {field: self.key, "views": self.views}
        if field == "name":
            data |= {"title": self.title or self.key, "address": self.address}
        return data


@dataclass(frozen=True)
class SiteSummary:
    """Today's numbers of the whole site: its unique visitors, top pages and top sources."""

    day: str
    visitors_today: int
    top_pages: tuple[Ranked, ...]
    top_sources: tuple[Ranked, ...]

    def as_dict(self) -> dict:
        """Serialise for the JSON API."""
        return {
            "day": self.day,
            "visitors_today": self.visitors_today,
            "top_pages": [page.as_dict("name") for page in self.top_pages],
            "top_sources": [source.as_dict("source") for source in self.top_sources],
        }


def day_keys(*, days: int, now: float | None = None) -> list[str]:
    """Keys of the last `days` days (1 to 90), today last; InvalidInput outside that range."""
    if not 1 <= days <= MAX_DAYS:
        raise InvalidInput(f"days is a whole number from 1 to {MAX_DAYS}.")
    clock = runtime().clock
    now = clock.time() if now is None else now
    return [VisitDay(day).key for day in days_up_to(now, clock.zone, count=days)]


def tally_rows(group: str, *, days: list[str]) -> dict[tuple[str, str], int]:
    """A group's counts per (day, key) over `days`: written, plus this process's waiting ones."""
    first, last = days[0], days[-1]
    counts = get_store().read_tally(group, first_day=first, last_day=last)
    for ref, count in tally_writer().waiting_for(group, first_day=first, last_day=last).items():
        counts[ref] = counts.get(ref, 0) + count
    return counts


def ranked(counts: dict[tuple[str, str], int], *, limit: int | None = TOP) -> list[tuple[str, int]]:
    """Keys by their views summed over the days, most first (then by key), at most `limit`."""
    sums: dict[str, int] = {}
    for (_, key), count in counts.items():
        sums[key] = sums.get(key, 0) + count
    return sorted(sums.items(), key=lambda item: (-item[1], item[0]))[:limit]


def site_summary(*, now: float | None = None) -> SiteSummary:
    """Today's unique visitors of the site and its ten most viewed pages and most frequent sources."""
    days = day_keys(days=1, now=now)
    top = ranked(tally_rows(PAGES_GROUP, days=days))
    states = {state.name: state for state in get_store().get_many(name for name, _ in top)}
    pages = tuple(
        Ranked(name, views, states[name].title, states[name].description)
        for name, views in top
        if name in states
    )
    sources = tuple(
        Ranked(source, views) for source, views in ranked(tally_rows(sources_group(SITE), days=days))
    )
    clock = runtime().clock
    day = visit_day(clock.time() if now is None else now, clock.zone)
    visitors = get_store().visitors_on([SITE], day=day).get(SITE, 0)
    return SiteSummary(day=days[-1], visitors_today=visitors, top_pages=pages, top_sources=sources)


def sources_of(*, name: str, days: int = 1, now: float | None = None) -> list[Ranked]:
    """The sources of a page (or of the site, for SITE) over the last `days`, most views first."""
    if name != SITE:
        get_store().get(validate_counter_name(name))  # an unknown page is a 404
    counts = tally_rows(sources_group(name), days=day_keys(days=days, now=now))
    return [Ranked(source, views) for source, views in ranked(counts, limit=None)]


def source_rows(*, name: str, days: int, now: float | None = None) -> list[tuple[str, str, int]]:
    """(day, source, views) of a page (or the site) over the last `days`, by day then most views."""
    if name != SITE:
        get_store().get(validate_counter_name(name))
    counts = tally_rows(sources_group(name), days=day_keys(days=days, now=now))
    return sorted(
        ((day, source, views) for (day, source), views in counts.items()), key=lambda r: (r[0], -r[2], r[1])
    )


def page_budget() -> PageBudget:
    """Pages created at their first view so far, and new pages refused at the cap."""
    return get_store().page_budget()
