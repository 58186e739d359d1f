"""Who reads the table's stream and how far behind it is, for the admin (from the store's lease)."""

from __future__ import annotations

import logging

from counters.exceptions import CounterError
from counters.store import get_store
from counters.store.capabilities import STREAMS

logger = logging.getLogger(__name__)


def stream_status() -> dict | None:
    """`{"owner","live","lag_seconds",...}`, `{"owner": None}` when nobody reads; None without a stream."""
    store = get_store()
    if STREAMS not in store.capabilities:
        return None
    try:
        status = store.stream_status()
    except CounterError as exc:
        logger.warning("Could not read the stream's lease: %s", exc)
        return None
    if status is None or not status["live"]:
        return {"owner": None}
    return status
