"""The configured counter store, resolved lazily from a dotted path and kept in the process's runtime.

Looking the store up only builds it: tables are created and demo content written by
`manage.py counters_init`, never as a side effect of the first request.
"""

from __future__ import annotations

from django.utils.module_loading import import_string

from counters import conf
from counters.runtime import Runtime, runtime
from counters.store.base import CounterStore, StoreHooks
from counters.store.presence import PresenceStore

__all__ = ["CounterStore", "StoreHooks", "build_store", "get_presence_store", "get_store", "reset_store"]


def build_store(process: Runtime | None = None, *, hooks: StoreHooks = StoreHooks()) -> CounterStore:  # noqa: B008
    """Build the store named by COUNTERS_STORE_BACKEND (no I/O beyond connecting); `process`: a runtime."""
    backend = import_string(conf.store_backend())
    if process is not None:
        hooks = StoreHooks(moved=lambda: process.drop("store"), lost=lambda: store_lost(process))
    return backend.from_settings(hooks=hooks)


def store_lost(process: Runtime) -> None:
    """Tell the runtime's parts that listen (live pages) that the store is gone."""
    for part in process.each_built():
        listener = getattr(part, "store_lost", None)
        if callable(listener):
            listener()


def get_store() -> CounterStore:
    """This process's store, built on first use."""
    return runtime().store


def get_presence_store() -> PresenceStore:
    """This process's viewing-now counts store (Redis with channels_redis, else its own memory)."""
    return runtime().presence_store


def reset_store() -> None:
    """Forget the store and everything kept for it; the next use builds it from the settings."""
    runtime().drop("store")
