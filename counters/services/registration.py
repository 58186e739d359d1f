"""Register a counter (a page's views, or votes) by name, once; the same call again changes nothing."""

from __future__ import annotations

from dataclasses import dataclass

from counters.domain.names import KINDS, validate_counter_name, validate_slug, validate_text
from counters.domain.values import CounterDefinition, CounterState
from counters.exceptions import Conflict, InvalidInput
from counters.live import broadcast, catalog
from counters.store import get_store

MAX_DESCRIPTION_LENGTH = 500


@dataclass(frozen=True)
class Registered:
    """The counter as the store holds it, and whether this call created it."""

    state: CounterState
    created: bool


def counter_definition(
    *, name: str, kind: str = "views", title: str = "", description: str = "", start: int = 0
) -> CounterDefinition:
    """A valid definition, or InvalidInput saying which part does not fit."""
    if kind not in KINDS:
        raise InvalidInput(f"A counter's kind is one of {', '.join(KINDS)}.")
    # A page's views are counted by its slug (`/pages/<slug>/`, `count_view("<slug>")`).
    name = validate_slug(name, what="page name") if kind == "views" else validate_counter_name(name)
    if start < 0:
        raise InvalidInput("A counter starts at 0 or more.")
    return CounterDefinition(
        name=name,
        kind=kind,
        title=validate_text(title, what="title") if title.strip() else "",
        description=(
            validate_text(description, what="description", limit=MAX_DESCRIPTION_LENGTH)
            if description.strip()
            else ""
        ),
        start=start,
    )


def counter_register(definition: CounterDefinition) -> Registered:
    """Register a counter once and show it on open pages; a counter of that name is left as it is.

    Conflict if the name is registered already as the other kind.
    """
    store = get_store()
    created = store.define_counter(definition)
    state = store.get(definition.name)
    if state.kind != definition.kind:
        raise Conflict(
            f"{definition.name!r} is registered already as a {state.kind} counter; pick another name."
        )
    if created:
        broadcast.publish([state])
        catalog.publish_catalog()
    return Registered(state=state, created=created)
