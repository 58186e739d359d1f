"""Reads of counters: listing, search, one counter, its resets, a page's title."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.core.cache.backends.locmem import LocMemCache

from counters.domain.names import validate_counter_name, validate_slug
from counters.domain.values import CounterState, ResetRecord
from counters.domain.visitors import visit_day
from counters.runtime import runtime
from counters.store import get_presence_store, get_store
from counters.store.presence import viewing_now

PAGE_META_SECONDS = 60
# This process's own memory, whatever CACHES says: a page must not depend on Redis (live updates only),
# and a project adding the app needs no cache alias of ours.
PAGE_META_CACHE = LocMemCache("counters-page-meta", {"OPTIONS": {"MAX_ENTRIES": 10_000}})


@dataclass(frozen=True)
class PageMeta:
    """What a counted page shows besides its count."""

    slug: str
    title: str
    description: str


def counter_list() -> list[CounterState]:
    """Every registered counter with its total; view counters with today's unique visitors too."""
    return with_visitors_today(get_store().list_counters())


def with_visitors_today(states: list[CounterState], *, now: float | None = None) -> list[CounterState]:
    """The states, each view counter's with its unique visitors of the site's current day (one read)."""
    pages = [state.name for state in states if state.kind == "views"]
    if not pages:
        return states
    clock = runtime().clock
    day = visit_day(clock.time() if now is None else now, clock.zone)
    counts = get_store().visitors_on(pages, day=day)
    return [
        replace(state, visitors_today=counts.get(state.name, 0)) if state.kind == "views" else state
        for state in states
    ]


def counter_states(*, names: list[str]) -> list[CounterState]:
    """The registered counters among `names`, in that order."""
    return get_store().get_many(validate_counter_name(name) for name in names)


def counter_search(*, query: str = "", kind: str = "") -> list[CounterState]:
    """Counters whose name or title contains `query` (any case), of `kind` if given."""
    needle = query.strip().lower()
    return [
        state
        for state in counter_list()
        if (not kind or state.kind == kind)
        and (not needle or needle in state.name or needle in state.title.lower())
    ]


def counter_resets(*, name: str, limit: int = 50) -> list[ResetRecord]:
    """A counter's applied resets, newest first, from their audit records."""
    return get_store().reset_history(validate_counter_name(name), limit=limit)


def counter_get(*, name: str) -> CounterState:
    """One counter by name."""
    return get_store().get(validate_counter_name(name))


def counter_detail(*, name: str) -> CounterState:
    """One counter by name; a view counter with today's unique visitors too."""
    return with_visitors_today([counter_get(name=name)])[0]


def counter_viewing_now(*, name: str) -> int | None:
    """Browsers that have a page open now, over every worker; None while that cannot be read."""
    return viewing_now(get_presence_store(), name)


def page_meta(*, slug: str) -> PageMeta:
    """Title and description of a page, cached briefly so a counted page costs one write."""
    key = f"counters:page-meta:{validate_slug(slug)}"
    meta = PAGE_META_CACHE.get(key)
    if meta is None:
        state = get_store().get(slug)
        meta = PageMeta(slug=slug, title=state.title or slug, description=state.description)
        PAGE_META_CACHE.set(key, meta, PAGE_META_SECONDS)
    return meta
