"""Who reads the table's stream and how far behind it is, for the admin (from the lease item)."""

from __future__ import annotations

import logging

from botocore.exceptions import BotoCoreError, ClientError

from counters.store import get_store
from counters.streams.lease import lease_status

logger = logging.getLogger(__name__)


def stream_status() -> dict | None:
    """`{"owner","live","lag_seconds",...}`, `{"owner": None}` when nobody reads; None without a stream."""
    store = get_store()
    if getattr(store, "streams", None) is None:
        return None
    try:
        status = lease_status(store.retrying, store.table)
    except (ClientError, BotoCoreError) as exc:
        logger.warning("Could not read the stream's lease: %s", exc)
        return None
    if status is None or not status["live"]:
        return {"owner": None}
    return status
