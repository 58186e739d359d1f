"""One stream reader per site: a lease item in the table, taken and renewed with conditional writes.

Whoever holds an unexpired lease reads; it renews every third of the lease and counts itself the
holder only until two thirds have passed since its last renewal, so a holder cut off stops reading
before anyone else may take over. A standby reads the lease item every eighth of the lease and writes
only when it finds the lease free or expired, so a holder that dies (it stops renewing) is followed
within the lease's length and one eighth after its last renewal. `calls_per_hour` is what this costs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from counters.store.dynamodb import schema

logger = logging.getLogger(__name__)

# Fractions of the lease: the holder renews after RENEW, reads until HOLD without a renewal, and a
# standby looks at the lease item every POLL (a read: a conditional write per look would cost more).
RENEW = 1 / 3
HOLD = 2 / 3
POLL = 1 / 8


def calls_per_hour(seconds: float) -> dict[str, dict[str, int]]:
    """DynamoDB calls one lease costs per hour: the holder's renewals, each standby's looks."""
    return {
        "holder": {"PutItem": round(3600 / (seconds * RENEW))},
        "standby": {"GetItem": round(3600 / (seconds * POLL))},
    }


def lease_key(stream_of: str) -> dict:
    """The lease item of the stream of table `stream_of` (ours, or a watched one)."""
    return {schema.PK: {"S": "STREAM"}, schema.SK: {"S": f"LEASE#{stream_of}"}}

OWNER = "owner"
UNTIL_MS = "until_ms"
LAG_MS = "lag_ms"
# The lease is free, ours, or expired.
TAKE_CONDITION = "attribute_not_exists(#pk) OR #owner = :me OR #until < :now"


class Lease:
    """The stream's lease as one owner sees it."""

    def __init__(
        self,
        client: Any,
        table: str,
        *,
        owner: str,
        seconds: float,
        stream_of: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        # The lease item lives in our `table`; it is for the stream of `stream_of` (default: that table).
        self._client = client
        self._table = table
        self._key = lease_key(stream_of or table)
        self.owner = owner
        self.seconds = seconds
        self._clock = clock
        self._renewed_at: float | None = None
        self._tried_at = float("-inf")
        self.lag = 0.0  # written with each renewal, for the admin

    @property
    def held(self) -> bool:
        """Whether this owner may read now (renewed within two thirds of the lease)."""
        return self._renewed_at is not None and self._clock() < self._renewed_at + self.seconds * HOLD

    def hold(self) -> bool:
        """Take or renew the lease when due; whether this owner holds it."""
        now = self._clock()
        if self.held and now < self._renewed_at + self.seconds * RENEW:
            return True
        was_held = self.held
        if not was_held:
            # A standby looks every eighth of the lease, and writes only once the lease is free.
            if now < self._tried_at + self.seconds * POLL:
                return False
            self._tried_at = now
            if not self._takeable(now):
                return False
        if self._write():
            if not was_held:
                logger.info("Stream reader %s holds the lease of table %s", self.owner, self._table)
            return True
        return self.held

    def release(self) -> None:
        """Give the lease up at once (a clean shutdown), so another worker need not wait for it to expire."""
        if self._renewed_at is None:
            return
        self._renewed_at = None
        try:
            self._client.delete_item(
                TableName=self._table,
                Key=self._key,
                ConditionExpression="#owner = :me",
                ExpressionAttributeNames={"#owner": OWNER},
                ExpressionAttributeValues={":me": {"S": self.owner}},
            )
        except (ClientError, BotoCoreError) as exc:
            logger.info("Stream lease not released (%s); it expires by itself", exc)

    def _takeable(self, now: float) -> bool:
        """Whether the lease item is absent, ours or expired (a strongly consistent read)."""
        try:
            answer = self._client.get_item(TableName=self._table, Key=self._key, ConsistentRead=True)
            item = answer.get("Item")
        except (ClientError, BotoCoreError) as exc:
            logger.warning("Stream lease not read: %s", exc)
            return False
        return not item or item[OWNER]["S"] == self.owner or int(item[UNTIL_MS]["N"]) < int(now * 1000)

    def _write(self) -> bool:
        now = self._clock()
        item = {
            **self._key,
            OWNER: {"S": self.owner},
            UNTIL_MS: {"N": str(int((now + self.seconds) * 1000))},
            LAG_MS: {"N": str(int(self.lag * 1000))},
        }
        try:
            self._client.put_item(
                TableName=self._table,
                Item=item,
                ConditionExpression=TAKE_CONDITION,
                ExpressionAttributeNames={"#pk": schema.PK, "#owner": OWNER, "#until": UNTIL_MS},
                ExpressionAttributeValues={":me": {"S": self.owner}, ":now": {"N": str(int(now * 1000))}},
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                logger.warning("Stream lease not renewed: %s", exc)
                return False
            if self._renewed_at is not None:
                logger.warning("Stream reader %s lost the lease to another worker", self.owner)
            self._renewed_at = None
            return False
        except BotoCoreError as exc:
            logger.warning("Stream lease not renewed: %s", exc)
            return False
        self._renewed_at = now
        return True


def lease_status(
    client: Any, table: str, *, stream_of: str | None = None, clock: Callable[[], float] = time.time
) -> dict | None:
    """Who reads the stream, until when, and its lag as last reported (None: nobody holds the lease)."""
    key = lease_key(stream_of or table)
    item = client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
    if not item:
        return None
    until = int(item[UNTIL_MS]["N"]) / 1000
    return {
        "owner": item[OWNER]["S"],
        "expires_in": round(until - clock(), 1),
        "live": until > clock(),
        "lag_seconds": int(item.get(LAG_MS, {}).get("N", "0")) / 1000,
    }
