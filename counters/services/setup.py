"""Prepare the store: create its table if missing and, if asked, register the demo pages and polls."""

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


def store_prepare(*, demo: bool) -> Prepared:
    """Create the table (idempotent) and seed the demo content only when `demo` is set."""
    store = get_store()
    created = store.ensure_table()
    added = seed_demo(store) if demo else 0
    if added:
        catalog.publish_catalog()  # pages already open show the new pages and polls
    return Prepared(table_created=created, demo_added=added)
