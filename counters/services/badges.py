"""Badges: the counter a badge shows (its fetch counted as a view if the owner opted in), and the opt-in."""

from __future__ import annotations

from dataclasses import replace

from counters.domain.names import validate_counter_name
from counters.domain.values import CounterState
from counters.domain.visitors import Client
from counters.exceptions import InvalidInput
from counters.services.counters import view_record
from counters.store import get_store


def badge_fetch(*, name: str, count: bool, client: Client | None = None) -> CounterState:
    """The counter a badge shows; with `count`, a page counter that opted in counts this fetch first.

    The fetch counts as any view does: a bot's apart, a person's toward the day's unique visitors.
    """
    state = get_store().get(validate_counter_name(name))
    if count and state.badge_counts and state.kind == "views":
        written = view_record(slug=name, client=client)
        state = replace(state, value=written.value, version=written.version, updated_at=written.updated_at)
    return state


def badge_counting_set(*, name: str, enabled: bool) -> CounterState:
    """Choose whether each fetch of a counter's badge counts a view (off until its owner turns it on)."""
    name = validate_counter_name(name)
    if enabled and get_store().get(name).kind != "views":
        raise InvalidInput(f"{name} counts votes: only a page's badge can count views.")
    return get_store().set_badge_counts(name, enabled=enabled)
