"""The stream's shards: which exist, and which may be read now (a parent before its children)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Shard:
    """One shard of the stream."""

    id: str
    parent: str | None
    closed: bool  # no new changes will come to it; reading it ends at its last record


def list_shards(streams: Any, arn: str) -> list[Shard]:
    """Every shard of the stream (DescribeStream, page by page)."""
    shards: list[Shard] = []
    request: dict[str, Any] = {"StreamArn": arn}
    while True:
        description = streams.describe_stream(**request)["StreamDescription"]
        for shard in description.get("Shards", []):
            ending = shard.get("SequenceNumberRange", {}).get("EndingSequenceNumber")
            shards.append(Shard(shard["ShardId"], shard.get("ParentShardId"), ending is not None))
        last = description.get("LastEvaluatedShardId")
        if not last:
            return shards
        request["ExclusiveStartShardId"] = last


def readable(shards: list[Shard], done: set[str]) -> list[Shard]:
    """Shards to read now: not finished, and whose parent is finished or gone (trimmed from the stream).

    Changes of one item move from a parent shard to its children when the shard rolls over or
    splits: reading a child only after its parent keeps each item's changes in order.
    """
    known = {shard.id for shard in shards}
    return [
        shard
        for shard in shards
        if shard.id not in done and (shard.parent in done or shard.parent not in known)
    ]
