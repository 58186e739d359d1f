"""Prepare the store: create its table if missing, move starts into totals, and seed the demo if asked."""

from __future__ import annotations

from dataclasses import dataclass

from counters.demo import seed_demo
from counters.live import catalog
from counters.store import get_store


@dataclass(frozen=True)
class Prepared:
    """What preparing the store did."""

    table_created: bool
    demo_added: int
    # Counters defined before their start lived in their stored total, whose start went in now.
    starts_moved: int = 0


def store_prepare(*, demo: bool) -> Prepared:
    """Create the table, move starts into totals (both idempotent), and seed the demo if `demo` is set."""
    store = get_store()
    created = store.ensure_table()
    moved = store.move_starts()
    added = seed_demo(store) if demo else 0
    if added:
        catalog.publish_catalog()  # pages already open show the new pages and polls
    return Prepared(table_created=created, demo_added=added, starts_moved=moved)
