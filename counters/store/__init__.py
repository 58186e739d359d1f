"""The configured counter store, resolved lazily from a dotted path and cached per process."""

from __future__ import annotations

import threading

from django.utils.module_loading import import_string

from counters import conf
from counters.store.base import (
    CounterDefinition,
    CounterState,
    CounterStore,
    PollDefinition,
    PollOption,
    ResetRecord,
)

__all__ = [
    "CounterDefinition",
    "CounterState",
    "CounterStore",
    "PollDefinition",
    "PollOption",
    "ResetRecord",
    "get_store",
    "reset_store",
]

_lock = threading.Lock()
_store: CounterStore | None = None


def build_default_store() -> CounterStore:
    """Build the store named by COUNTERS_STORE_BACKEND and make sure its table exists."""
    from counters.dynamo.client import get_clients

    backend = import_string(conf.store_backend())
    clients = get_clients()
    store = backend(client=clients.single_shot, retrying_client=clients.retrying, table=conf.table_name())
    # Checked once per process, never per request; a brand-new table gets the demo content.
    if store.ensure_table() and conf.seed_demo():
        from counters.seed import seed_demo

        seed_demo(store)
    return store


def get_store() -> CounterStore:
    """Return this process's store, building it on first use."""
    global _store
    store = _store
    if store is not None:
        return store
    with _lock:
        if _store is None:
            _store = build_default_store()
        return _store


def reset_store() -> None:
    """Forget the cached store and clients, e.g. when settings change."""
    global _store
    from counters.dynamo.client import clear_clients

    with _lock:
        _store = None
    clear_clients()
