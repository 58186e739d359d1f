"""Writes: every state change goes through here, then to the live push."""

from __future__ import annotations

from counters import broadcast
from counters.names import validate_slug
from counters.store import CounterState, get_store


def view_record(*, slug: str) -> CounterState:
    """Count one view of a registered page and push its new total."""
    validate_slug(slug, what="page slug")
    state = get_store().increment(slug, kind="views")
    broadcast.publish([state])
    return state
