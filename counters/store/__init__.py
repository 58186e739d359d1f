"""The configured counter store, resolved lazily from a dotted path and cached per process.

Looking the store up only builds it: tables are created and demo content written by
`manage.py counters_init`, never as a side effect of the first request.
"""

from __future__ import annotations

import threading

from django.utils.module_loading import import_string

from counters import conf
from counters.store.base import CounterStore

__all__ = ["CounterStore", "get_store", "reset_store"]

_lock = threading.Lock()
_store: CounterStore | None = None


def build_store() -> CounterStore:
    """Build the store named by COUNTERS_STORE_BACKEND from the settings (no I/O beyond connecting)."""
    backend = import_string(conf.store_backend())
    return backend.from_settings()


def get_store() -> CounterStore:
    """Return this process's store, building it on first use."""
    global _store
    store = _store
    if store is not None:
        return store
    with _lock:
        if _store is None:
            _store = build_store()
        return _store


def reset_store() -> None:
    """Forget the cached store and its clients, e.g. when settings change."""
    global _store
    with _lock:
        store, _store = _store, None
    if store is not None:
        store.close()
