"""Everything one process reads when it holds the leases: our table's stream, watched tables' streams,
and the poll of watched items whose table has no stream. The watched list is read again now and then."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from counters.store.capabilities import OnChanges, StreamWiring
from counters.store.dynamodb import watched
from counters.store.dynamodb.streams import records
from counters.store.dynamodb.streams.lease import Lease
from counters.store.dynamodb.streams.poller import WatchPoller
from counters.store.dynamodb.streams.reader import BATCH_LIMIT, StreamReader
from counters.store.dynamodb.streams.watched import WatchedChanges, has_usable_stream
from counters.store.dynamodb.table import Table

logger = logging.getLogger(__name__)

WATCHES_REFRESH_SECONDS = 30.0
POLL_LEASE = "#poll"  # no table is named with a '#': the poll's own lease


def own_changes(on_changes: OnChanges) -> Callable[[list[dict[str, Any]]], None]:
    """A handler of our table's records that hands their meaning (records.changes_of) to `on_changes`."""
    return lambda batch: on_changes(*records.changes_of(batch))


class EveryStream:
    """Our table's reader, a reader per watched table with a stream, and the poller of the rest."""

    batch_limit = BATCH_LIMIT

    def __init__(
        self, table: Table, streams: Any, wiring: StreamWiring, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._table = table
        self._streams = streams
        self._owner = wiring.owner
        self._lease_seconds = wiring.lease_seconds
        self._publish_states = wiring.publish_states
        self._clock = clock
        self.own = self._reader(None, own_changes(wiring.on_changes), wiring.observe)
        self._watched: dict[str, StreamReader] = {}
        self.poller = WatchPoller(
            table=table,
            lease=self._lease(POLL_LEASE),
            publish=wiring.publish_states,
            interval=wiring.poll_seconds,
        )
        self._watches_read_at = float("-inf")

    @property
    def lease(self) -> Lease:
        """The lease of our own table's stream."""
        return self.own.lease

    def round(self) -> int:
        """One round of every reader and the poller; the records and items read."""
        if self._clock() - self._watches_read_at > WATCHES_REFRESH_SECONDS:
            self._watches_read_at = self._clock()
            self._follow_watches()
        read = self.own.round()
        for reader in list(self._watched.values()):
            try:
                read += reader.round()
            except Exception as exc:
                logger.warning("Reading the stream of watched table %s failed: %r", reader.source, exc)
        return read + self.poller.round()

    def close(self) -> None:
        """Give every lease up."""
        for part in (self.own, *self._watched.values(), self.poller):
            part.close()

    def _follow_watches(self) -> None:
        """Read the watched counters again: a reader per table that streams, the poll for the others."""
        found = watched.watches(self._table)
        by_table: dict[str, list[watched.Watch]] = {}
        for watch in found:
            by_table.setdefault(watch.table, []).append(watch)
        polled, streamed = [], {}
        for table, group in by_table.items():
            if self._streams_of(table):
                handle = WatchedChanges(self._table, group, publish=self._publish_states)
                streamed[table] = self._watched.get(table) or self._reader(table, handle, None)
                streamed[table].handle = handle  # the table's watched items may have changed
            else:
                polled += group
        for table in set(self._watched) - set(streamed):
            self._watched[table].close()
        self._watched = streamed
        self.poller.watches = polled

    def _streams_of(self, table: str) -> bool:
        try:
            return has_usable_stream(self._table.retrying, table)
        except Exception as exc:
            logger.warning("Could not describe watched table %s (%r); polling it", table, exc)
            return False

    def _lease(self, stream_of: str | None) -> Lease:
        return Lease(self._table, owner=self._owner, seconds=self._lease_seconds, stream_of=stream_of)

    def _reader(self, source: str | None, handle, observe) -> StreamReader:
        return StreamReader(
            table=self._table,
            streams=self._streams,
            source=source,
            lease=self._lease(source),
            handle=handle,
            **({"observe": observe} if observe else {}),
        )
