"""Watched counters in a table without a stream: strongly consistent reads at a bounded rate.

Every COUNTERS_WATCH_POLL_SECONDS the holder of the poll's lease reads each such item (BatchGetItem,
ConsistentRead: one read capacity unit per item of up to 4 KB) and mirrors a changed number. A change
shows within one poll; changes between two polls show as one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from counters.domain.values import CounterState
from counters.store.dynamodb import watched
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.streams.lease import Lease
from counters.store.dynamodb.table import Table

Publish = Callable[[list[CounterState]], None]
BATCH_GET_LIMIT = 100


class WatchPoller:
    """Read the watched items of stream-less tables at most once per interval while holding the lease."""

    def __init__(
        self,
        *,
        table: Table,
        lease: Lease,
        publish: Publish,
        interval: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._table = table
        self.lease = lease
        self._publish = publish
        self._interval = interval
        self._clock = clock
        self._polled_at = float("-inf")
        self.watches: list[watched.Watch] = []

    def round(self) -> int:
        """Poll if due and the lease is ours; how many items were read."""
        if not self.watches or self._clock() - self._polled_at < self._interval or not self.lease.hold():
            return 0
        self._polled_at = self._clock()
        states = []
        for watch, value in self._read_all():
            state = watched.mirror(self._table, watch.name, value)
            if state is not None:
                states.append(state)
        if states:
            self._publish(states)
        return len(self.watches)

    def close(self) -> None:
        """Give the lease up."""
        self.lease.release()

    def _read_all(self) -> list[tuple[watched.Watch, int]]:
        """Each watched item's number (BatchGetItem per table, strongly consistent; absent: 0)."""
        found = []
        by_table: dict[str, list[watched.Watch]] = {}
        for watch in self.watches:
            by_table.setdefault(watch.table, []).append(watch)
        for table, group in by_table.items():
            for start in range(0, len(group), BATCH_GET_LIMIT):
                found += self._read_batch(table, group[start : start + BATCH_GET_LIMIT])
        return found

    def _read_batch(self, table: str, group: list[watched.Watch]) -> list[tuple[watched.Watch, int]]:
        request = {table: {"Keys": [watch.key for watch in group], "ConsistentRead": True}}
        items: list[dict[str, Any]] = []
        while request:
            answer = self._table.retrying.batch_get_item(RequestItems=request)
            items += answer.get("Responses", {}).get(table, [])
            request = answer.get("UnprocessedKeys") or {}
        by_key = {}
        for item in items:
            for watch in group:
                if all(item.get(name) == value for name, value in watch.key.items()):
                    by_key[watch.key_text] = as_int(item.get(watch.attribute))
        return [(watch, by_key.get(watch.key_text, 0)) for watch in group]
