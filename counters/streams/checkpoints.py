"""Each shard's last handled change, kept in the table, so a new reader goes on where the last one was."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from counters.store.dynamodb import schema

SEQUENCE = "sequence"
DONE = "done"
SHARD_PREFIX = "SHARD#"
# A finished shard's checkpoint outlives the stream's 24 hours of records, then the table's TTL takes it.
DONE_TTL_SECONDS = 2 * 24 * 3600


@dataclass(frozen=True)
class Checkpoint:
    """Where reading a shard stands: the last handled sequence number, and whether the shard is finished."""

    sequence: str = ""
    done: bool = False


class Checkpoints:
    """One stream's checkpoints, in partition `STREAM#<table read>#<stream label>` of our table."""

    def __init__(self, client: Any, table: str, stream_label: str, *, stream_of: str | None = None) -> None:
        self._client = client
        self._table = table
        self._pk = {"S": f"STREAM#{stream_of or table}#{stream_label}"}

    def load(self) -> dict[str, Checkpoint]:
        """Every shard's checkpoint (one Query)."""
        found: dict[str, Checkpoint] = {}
        request = {
            "TableName": self._table,
            "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :prefix)",
            "ExpressionAttributeNames": {"#pk": schema.PK, "#sk": schema.SK},
            "ExpressionAttributeValues": {":pk": self._pk, ":prefix": {"S": SHARD_PREFIX}},
            "ConsistentRead": True,
        }
        for page in self._client.get_paginator("query").paginate(**request):
            for item in page["Items"]:
                shard = item[schema.SK]["S"].removeprefix(SHARD_PREFIX)
                found[shard] = Checkpoint(item.get(SEQUENCE, {}).get("S", ""), schema.as_bool(item.get(DONE)))
        return found

    def save(self, shard: str, checkpoint: Checkpoint) -> None:
        """Write one shard's checkpoint."""
        item = {
            schema.PK: self._pk,
            schema.SK: {"S": SHARD_PREFIX + shard},
            SEQUENCE: {"S": checkpoint.sequence},
            DONE: {"BOOL": checkpoint.done},
        }
        if checkpoint.done:
            item[schema.EXPIRES_AT] = {"N": str(int(time.time()) + DONE_TTL_SECONDS)}
        self._client.put_item(TableName=self._table, Item=item)
