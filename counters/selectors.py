"""Reads shaped for pages, the JSON API and websocket snapshots."""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.core.cache import caches

from counters.buckets import Window, iso, window_named
from counters.names import option_counter_name, validate_counter_name, validate_slug
from counters.store import CounterState, PollDefinition, ResetRecord, get_store

PAGE_META_SECONDS = 60


@dataclass(frozen=True)
class PageMeta:
    """What a counted page shows besides its count."""

    slug: str
    title: str
    description: str


@dataclass(frozen=True)
class OptionTotal:
    """One poll option with its vote count."""

    id: str
    label: str
    counter: str
    votes: int
    version: int


@dataclass(frozen=True)
class PollTotals:
    """A poll with the totals of its options."""

    id: str
    question: str
    closed: bool
    options: tuple[OptionTotal, ...]

    @property
    def total_votes(self) -> int:
        """Votes across every option."""
        return sum(option.votes for option in self.options)

    def as_dict(self) -> dict:
        """Serialise for the JSON API."""
        return {
            "id": self.id,
            "question": self.question,
            "closed": self.closed,
            "total": self.total_votes,
            "options": [option.__dict__ for option in self.options],
        }


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


def page_list() -> list[CounterState]:
    """Registered pages (views counters), for links on the dashboard."""
    return [state for state in counter_list() if state.kind == "views"]


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


def option_counters(poll: PollDefinition) -> list[str]:
    """Names of a poll's option counters, in option order."""
    return [option_counter_name(poll.id, option.id) for option in poll.options]


def poll_totals_from_states(poll: PollDefinition, states: dict[str, CounterState]) -> PollTotals:
    """A poll with the totals found in `states` (by counter name); missing ones show 0."""
    options = []
    for option in poll.options:
        counter = option_counter_name(poll.id, option.id)
        state = states.get(counter)
        options.append(
            OptionTotal(
                id=option.id,
                label=option.label,
                counter=counter,
                votes=state.value if state else 0,
                version=state.version if state else 0,
            )
        )
    return PollTotals(id=poll.id, question=poll.question, closed=poll.closed, options=tuple(options))


def poll_totals_for(polls: list[PollDefinition]) -> list[PollTotals]:
    """Attach option totals to polls with one batched read."""
    names = [name for poll in polls for name in option_counters(poll)]
    states = {state.name: state for state in get_store().get_many(names)}
    return [poll_totals_from_states(poll, states) for poll in polls]


def poll_list() -> list[PollTotals]:
    """Every poll with its totals."""
    return poll_totals_for(get_store().list_polls())


def poll_totals(*, poll_id: str) -> PollTotals:
    """One poll with its totals."""
    return poll_totals_for([get_store().get_poll(validate_slug(poll_id, what="poll id"))])[0]


def voter_choices(*, voter: str, poll_ids: list[str]) -> dict[str, str]:
    """The option a voter holds in each of these polls (polls without their vote are left out)."""
    return get_store().voter_choices(voter, poll_ids) if poll_ids else {}


@dataclass(frozen=True)
class CounterHistory:
    """Views per bucket over a chart window, oldest first, empty buckets as 0."""

    name: str
    window: Window
    starts: tuple[int, ...]
    counts: tuple[int, ...]

    def as_dict(self) -> dict:
        """Serialise for the JSON API."""
        return {
            "name": self.name,
            "window": self.window.name,
            "resolution": self.window.resolution.name,
            "bucket_seconds": self.window.resolution.seconds,
            "total": sum(self.counts),
            "points": [
                {"start": iso(start), "count": count}
                for start, count in zip(self.starts, self.counts, strict=True)
            ],
        }


def counter_history(*, name: str, window: str, now: float | None = None) -> CounterHistory:
    """A counter's views per minute or hour over `window` (1h, 48h, 90d), zero-filled."""
    name = validate_counter_name(name)
    chosen = window_named(window)
    store = get_store()
    store.get(name)  # unknown counters are a 404, not an empty chart
    resolution = chosen.resolution
    starts = chosen.starts(time.time() if now is None else now)
    found = store.read_buckets(name, first=resolution.key(starts[0]), last=resolution.key(starts[-1]))
    counts = tuple(found.get(resolution.key(start), 0) for start in starts)
    return CounterHistory(name=name, window=chosen, starts=tuple(starts), counts=counts)
