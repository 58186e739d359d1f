"""The rule of a hot counter's shard count, the same for every store backend."""

from __future__ import annotations

from counters.exceptions import InvalidInput

# DynamoDB resets a counter in one transaction over its total, every shard and the audit record
# (100 items at most); every backend keeps the same limit so a count valid on one is valid on all.
MAX_SHARDS = 64


def validate_shards(shards: object) -> int:
    """Return a valid shard count or raise InvalidInput."""
    if not isinstance(shards, int) or isinstance(shards, bool) or not 1 <= shards <= MAX_SHARDS:
        raise InvalidInput(f"A hot counter has 1 to {MAX_SHARDS} shards.")
    return shards
