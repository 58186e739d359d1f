"""Reads of counters: listing, search, one counter, its resets, a page's title."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import caches

from counters.domain.names import validate_counter_name, validate_slug
from counters.domain.values import CounterState, ResetRecord
from counters.store import get_store

PAGE_META_SECONDS = 60


@dataclass(frozen=True)
class PageMeta:
    """What a counted page shows besides its count."""

    slug: str
    title: str
    description: str


def counter_list() -> list[CounterState]:
    """Every registered counter with its total."""
    return get_store().list_counters()


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


def page_meta(*, slug: str) -> PageMeta:
    """Title and description of a page, cached briefly so a counted page costs one write."""
    key = f"counters:page-meta:{validate_slug(slug)}"
    # A process-local cache: a page must not depend on Redis, which only carries live updates.
    local = caches["local"]
    meta = local.get(key)
    if meta is None:
        state = get_store().get(slug)
        meta = PageMeta(slug=slug, title=state.title or slug, description=state.description)
        local.set(key, meta, PAGE_META_SECONDS)
    return meta
