"""Time buckets of counters in DynamoDB: views per minute and per hour, expiring through TTL.

Items `PK=H#<name>`, `SK=M#<yyyy-mm-ddThh:mm>` or `H#<yyyy-mm-ddThh>`, attributes `count` and
`expires_at`. They live in their own partition, not the counter's, so a hot counter's history adds no
write load next to its total and shards. Writes come batched from
counters/background/history_writer.py: one ADD per bucket per process per flush, never one per view.
"""

from __future__ import annotations

from typing import Any

from counters.store.dynamodb import schema as s
from counters.store.dynamodb.outage import unavailable_on_outage
from counters.store.dynamodb.schema import as_int

# SET of `expires_at` is idempotent; only `count` accumulates.
ADD_TO_BUCKET = "ADD #count :count SET #expires = :expires"


class HistoryMixin:
    """History buckets for DynamoCounterStore."""

    client: Any
    table: str

    def add_to_bucket(self, name: str, bucket: str, count: int, *, expires_at: int) -> None:
        """One ADD on a bucket, sent once: a resent ADD whose answer was lost would count twice."""
        with unavailable_on_outage(write=True):
            self.client.update_item(
                TableName=self.table,
                Key=s.history_key(name, bucket),
                UpdateExpression=ADD_TO_BUCKET,
                ExpressionAttributeNames={"#count": s.COUNT, "#expires": s.EXPIRES_AT},
                ExpressionAttributeValues={":count": {"N": str(count)}, ":expires": {"N": str(expires_at)}},
            )

    def read_buckets(self, name: str, *, first: str, last: str) -> dict[str, int]:
        """One Query of a bucket range; eventually consistent is plenty for a chart and costs half."""
        items = self._query_all(s.history_pk(name), sk_range=(first, last), consistent=False)
        return {item[s.SK]["S"]: as_int(item.get(s.COUNT)) for item in items}
