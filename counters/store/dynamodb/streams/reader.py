"""Read the table's stream while holding its lease, and publish other writers' changes live.

One `round()` renews the lease, follows the shards (DescribeStream every SHARDS_REFRESH_SECONDS, or at
once when a shard ends), and reads one batch from each shard it may read, from its checkpoint. Changes
the app made itself were pushed when they were made; other writers' new totals go out through the same
broadcaster, each with its stream sequence number so that browsers order it after the app's own state
at that version. Checkpoints are written after a batch is published: a reader that dies between the two
is followed by one that reads the batch again, and browsers ignore what they hold already (same version
and sequence), so nothing is lost and nothing is shown twice.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from counters.store.dynamodb.streams import records
from counters.store.dynamodb.streams.checkpoints import Checkpoint, Checkpoints
from counters.store.dynamodb.streams.lease import Lease
from counters.store.dynamodb.streams.shards import Shard, list_shards, readable
from counters.store.dynamodb.table import Table

logger = logging.getLogger(__name__)

BATCH_LIMIT = 1000
SHARDS_REFRESH_SECONDS = 10.0
# A stream lag reported at INFO once a minute; past LAG_WARNING_SECONDS as a warning.
LAG_LOG_SECONDS = 60.0
LAG_WARNING_SECONDS = 10.0
# A table without a stream is said once in the log, then looked at again this often (DescribeTable).
NO_STREAM_RECHECK_SECONDS = 60.0


class StreamReader:
    """Reads one table's stream when its lease is ours."""

    def __init__(
        self,
        *,
        table: Table,
        streams: Any,
        lease: Lease,
        handle: Callable[[list[dict[str, Any]]], None],
        source: str | None = None,
        observe: Callable[[str, float], None] = lambda result, value: None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        # The lease and checkpoints live in our `table`; the stream read is `source`'s (default: ours).
        self._table = table
        self._streams = streams
        self.source = source or table.name
        self.lease = lease
        self.handle = handle  # what a batch means (changes.py, watched.py)
        self._observe = observe
        self._clock = clock
        self._arn: str | None = None
        self._checkpoints: Checkpoints | None = None
        self._shards: list[Shard] = []
        self._listed_at = float("-inf")
        self._done: set[str] = set()
        self._positions: dict[str, Checkpoint] = {}
        self._iterators: dict[str, str] = {}
        self._lag_logged_at = float("-inf")
        self._caught_up_at: dict[str, float] = {}  # per shard: when a read last reached its end
        self._started = False  # the first round after taking the lease catches up: its lag is history
        self._streams_found: bool | None = None  # whether the table has a stream, once looked at
        self._looked_at = float("-inf")

    def round(self) -> int:
        """Read one batch from each readable shard if the lease is ours; how many records were read."""
        if not self._has_stream():
            return 0
        if not self.lease.hold():
            self._forget()
            return 0
        if self._arn is None and not self._start():
            return 0
        if self._clock() - self._listed_at > SHARDS_REFRESH_SECONDS:
            self._shards, self._listed_at = list_shards(self._streams, self._arn), self._clock()
        read, lag = 0, 0.0
        for shard in readable(self._shards, self._done):
            count, shard_lag = self._read_shard(shard)
            read, lag = read + count, max(lag, shard_lag)
        self._report_lag(lag)
        self._started = True
        return read

    def close(self) -> None:
        """Give the lease up."""
        self.lease.release()

    def _has_stream(self) -> bool:
        """Whether the table has a stream; a table without one is said once, and looked at now and then."""
        if self._streams_found:
            return True
        if self._clock() - self._looked_at < NO_STREAM_RECHECK_SECONDS:
            return False
        self._looked_at = self._clock()
        return self._note_stream(self._describe())

    def _describe(self) -> dict[str, Any]:
        return self._table.retrying.describe_table(TableName=self.source)["Table"]

    def _note_stream(self, table: dict[str, Any]) -> bool:
        """Keep whether `table` (its description) streams; say so in the log when that changes."""
        enabled = table.get("StreamSpecification", {}).get("StreamEnabled")
        found = bool(table.get("LatestStreamArn") and enabled)
        if found and self._streams_found is False:
            logger.info("Table %s has a stream now; reading it", self.source)
        elif not found and self._streams_found is not False:
            logger.warning(
                "Table %s has no stream: changes other writers make are not shown live "
                "(`manage.py counters_init` turns it on)",
                self.source,
            )
        self._streams_found = found
        return found

    def _start(self) -> bool:
        """Find the stream, load its checkpoints (a new holder goes on from them); False: it has none."""
        table = self._describe()
        if not self._note_stream(table):
            self._looked_at = self._clock()
            self.lease.release()
            return False
        self._arn = table["LatestStreamArn"]
        label = table["LatestStreamLabel"]
        self._checkpoints = Checkpoints(self._table, label, stream_of=self.source)
        self._positions = self._checkpoints.load()
        self._done = {shard for shard, checkpoint in self._positions.items() if checkpoint.done}
        self._listed_at = float("-inf")
        return True

    def _forget(self) -> None:
        """Not the holder (any more): another reader goes on; start afresh if the lease comes back."""
        self._arn = None
        self._started = False
        self._iterators.clear()

    def _read_shard(self, shard: Shard) -> tuple[int, float]:
        """Read, publish and checkpoint one batch of a shard; the records read and the oldest one's age."""
        asked_at = self._clock()
        answer = self._get_records(shard)
        batch = answer.get("Records", [])
        lag = self._lag(shard, batch)
        if len(batch) < BATCH_LIMIT:
            self._caught_up_at[shard.id] = asked_at
        self.handle(batch)
        following = answer.get("NextShardIterator")
        position = self._positions.get(shard.id, Checkpoint())
        if batch:
            position = Checkpoint(records.sequence_of(batch[-1]))
        if following is None:
            self._iterators.pop(shard.id, None)
            self._done.add(shard.id)
            self._listed_at = float("-inf")  # its children are readable now
            position = Checkpoint(position.sequence, done=True)
        else:
            self._iterators[shard.id] = following
        # The reader's own lease and checkpoint writes are in the stream too: saving after reading only
        # those would write a checkpoint each round for ever.
        if position.done or any(not self._bookkeeping(record) for record in batch):
            self._checkpoints.save(shard.id, position)
            self._positions[shard.id] = position
        return len(batch), max(lag, 0.0)

    def _lag(self, shard: Shard, batch: list[dict[str, Any]]) -> float:
        """How long the batch's oldest change waited: at most since it was made, or since the shard was read
        to its end (the creation time is rounded down, to the second on AWS, to the minute locally)."""
        if not batch:
            return 0.0
        now = self._clock()
        return max(min(now - records.created_at(batch[0]), now - self._caught_up_at.get(shard.id, 0.0)), 0.0)

    def _get_records(self, shard: Shard) -> dict[str, Any]:
        """One GetRecords; an expired iterator is renewed from the checkpoint, once."""
        try:
            return self._streams.get_records(ShardIterator=self._iterator(shard), Limit=BATCH_LIMIT)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code")
            if code not in ("ExpiredIteratorException", "TrimmedDataAccessException"):
                raise
            if code == "TrimmedDataAccessException":
                logger.warning("Stream shard %s was trimmed past its checkpoint; reading the rest", shard.id)
                self._positions.pop(shard.id, None)
            self._iterators.pop(shard.id, None)
            return self._streams.get_records(ShardIterator=self._iterator(shard), Limit=BATCH_LIMIT)

    def _iterator(self, shard: Shard) -> str:
        """The shard's iterator: the one the last batch gave, else after its checkpoint, else its start."""
        if shard.id in self._iterators:
            return self._iterators[shard.id]
        request = {"StreamArn": self._arn, "ShardId": shard.id, "ShardIteratorType": "TRIM_HORIZON"}
        sequence = self._positions.get(shard.id, Checkpoint()).sequence
        if sequence:
            request |= {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": sequence}
        return self._streams.get_shard_iterator(**request)["ShardIterator"]

    def _bookkeeping(self, record: dict[str, Any]) -> bool:
        """Whether a record is of this reader's own lease or checkpoints (only in our own table)."""
        return self.source == self._table.name and records.is_bookkeeping(record)

    def _report_lag(self, lag: float) -> None:
        """Keep the lag for the lease item (the admin) and the metrics; log it now and then."""
        self.lease.lag = lag
        self._observe("lag", lag)
        now = self._clock()
        behind = lag > LAG_WARNING_SECONDS and self._started
        if behind or now - self._lag_logged_at > LAG_LOG_SECONDS:
            level = logging.WARNING if behind else logging.INFO
            logger.log(level, "Stream of table %s: lag %.1f s (oldest unread change)", self.source, lag)
            self._lag_logged_at = now
