"""Time buckets of counters in DynamoDB: views per minute and per hour, expiring through TTL.

Items `PK=H#<name>`, `SK=M#<yyyy-mm-ddThh:mm>` or `H#<yyyy-mm-ddThh>`, attributes `count` and
`expires_at`; the daily unique visitors (`D#<yyyy-mm-dd>`, written by visitors.py) live beside them.
They live in their own partition, not the counter's, so a hot counter's history adds no
write load next to its total and shards. Writes come batched from
counters/background/history_writer.py: one ADD per bucket per process per flush, never one per view.
"""

from __future__ import annotations

from counters.store.dynamodb import schema
from counters.store.dynamodb.expressions import named, typed
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.table import Table

# SET of `expires_at` is idempotent; only `count` accumulates.
ADD_TO_BUCKET = "ADD #count :count SET #expires = :expires"


def add_to_bucket(table: Table, name: str, bucket: str, count: int, *, expires_at: int) -> None:
    """One ADD on a bucket, sent once: a resent ADD whose answer was lost would count twice."""
    table.update_item(
        schema.history_key(name, bucket),
        update=ADD_TO_BUCKET,
        names=named(count=schema.COUNT, expires=schema.EXPIRES_AT),
        values=typed(count=count, expires=expires_at),
        send_once=True,
    )


def read_buckets(table: Table, name: str, *, first: str, last: str) -> dict[str, int]:
    """One Query of a bucket range; eventually consistent is plenty for a chart and costs half."""
    # The range takes in the last bucket's shard items too (a hot page's daily visitors), summed per bucket.
    found = table.query_all(
        schema.history_pk(name), sk_range=(first, last + schema.SHARD_SUFFIX_END), consistent=False
    )
    counts: dict[str, int] = {}
    for item in found:
        bucket = schema.bucket_of(item[schema.SK]["S"])
        counts[bucket] = counts.get(bucket, 0) + as_int(item.get(schema.COUNT))
    return counts
