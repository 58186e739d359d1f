"""Each shard's last handled change, kept in the table, so a new reader goes on where the last one was."""

from __future__ import annotations

import time
from dataclasses import dataclass

from counters.store.dynamodb import schema
from counters.store.dynamodb.table import Table

# A finished shard's checkpoint outlives the stream's 24 hours of records, then the table's TTL takes it.
DONE_TTL_SECONDS = 2 * 24 * 3600


@dataclass(frozen=True)
class Checkpoint:
    """Where reading a shard stands: the last handled sequence number, and whether the shard is finished."""

    sequence: str = ""
    done: bool = False


class Checkpoints:
    """One stream's checkpoints, in partition `STREAM#<table read>#<stream label>` of our table."""

    def __init__(self, table: Table, stream_label: str, *, stream_of: str | None = None) -> None:
        self._table = table
        self._stream_of = stream_of or table.name
        self._label = stream_label

    def load(self) -> dict[str, Checkpoint]:
        """Every shard's checkpoint (one Query)."""
        found: dict[str, Checkpoint] = {}
        pk = schema.checkpoints_pk(self._stream_of, self._label)
        for item in self._table.query_all(pk, sk_prefix=schema.SHARD_SK_PREFIX):
            shard = item[schema.SK]["S"].removeprefix(schema.SHARD_SK_PREFIX)
            sequence, done = schema.as_str(item.get(schema.SEQUENCE)), schema.as_bool(item.get(schema.DONE))
            found[shard] = Checkpoint(sequence, done)
        return found

    def save(self, shard: str, checkpoint: Checkpoint) -> None:
        """Write one shard's checkpoint."""
        item = {
            **schema.checkpoint_key(self._stream_of, self._label, shard),
            schema.SEQUENCE: {"S": checkpoint.sequence},
            schema.DONE: {"BOOL": checkpoint.done},
        }
        if checkpoint.done:
            item[schema.EXPIRES_AT] = {"N": str(int(time.time()) + DONE_TTL_SECONDS)}
        self._table.put_item(item)
