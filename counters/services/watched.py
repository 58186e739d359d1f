"""Watch a number that lives in another DynamoDB table: register it as a counter of ours."""

from __future__ import annotations

from typing import Any

from counters.domain.names import KINDS, validate_counter_name
from counters.domain.values import CounterDefinition, CounterState
from counters.exceptions import Conflict, InvalidInput
from counters.live import catalog
from counters.store import get_store
from counters.store.capabilities import WATCHED, Watch


def counter_watch(
    *, name: str, table: str, key: dict[str, Any], attribute: str, kind: str = "views", title: str = ""
) -> CounterState:
    """Register `attribute` of the item `key` in `table` as counter `name`; it starts at the number there.

    Only that table is read here (GetItem); our table gets the counter. Open pages learn of it at once.
    """
    store = get_store()
    if WATCHED not in store.capabilities:
        raise InvalidInput("Watched counters need the DynamoDB store.")
    if kind not in KINDS:
        raise InvalidInput(f"The kind must be one of {', '.join(KINDS)}.")
    if not key or not all(isinstance(v, dict) and len(v) == 1 for v in key.values()):
        raise InvalidInput('The key must be a DynamoDB key, e.g. {"pk": {"S": "user#42"}}.')
    watch = Watch(name=validate_counter_name(name), table=table, key=key, attribute=attribute)
    tables = store.watched_tables()
    value = tables.read(watch)
    if not tables.register(CounterDefinition(name=name, kind=kind, title=title), watch, value=value):
        raise Conflict(f"There is a counter named {name!r} already.")
    catalog.publish_catalog()
    return store.get(name)
