"""Writes to counters: a counted view, making a counter hot, a conditional reset; each then pushed live."""

from __future__ import annotations

from counters.background import history_writer, hot_settler
from counters.domain.names import validate_counter_name, validate_slug
from counters.domain.values import CounterState
from counters.live import broadcast
from counters.store import get_store


def view_record(*, slug: str) -> CounterState:
    """Count one view of a registered page and push its new total."""
    validate_slug(slug, what="page slug")
    state = get_store().increment(slug, kind="views")
    history_writer.record(name=slug)
    hot_settler.written(name=slug)
    broadcast.publish([state])
    return state


def counter_make_hot(*, name: str, shards: int) -> CounterState:
    """Spread a counter's writes over `shards` shards, keeping its count, and push its total."""
    state = get_store().make_hot(validate_counter_name(name), shards=shards)
    broadcast.publish([state])
    return state


def counter_reset(*, name: str, expected_version: int, actor: str, reason: str) -> CounterState:
    """Reset a counter to 0 if it is still at the version the caller saw, and push the new total."""
    state = get_store().reset(
        validate_counter_name(name), expected_version=expected_version, actor=actor, reason=reason
    )
    broadcast.publish([state])
    return state
