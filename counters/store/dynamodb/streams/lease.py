"""One stream reader per table: a lease item in the table, taken and renewed with conditional writes.

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

from botocore.exceptions import ClientError

from counters.exceptions import CounterError
from counters.store.dynamodb import schema
from counters.store.dynamodb.table import ConditionFailed, Table

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


OWNER, UNTIL_MS, LAG_MS = schema.OWNER, schema.UNTIL_MS, schema.LAG_MS
# Failures a lease call logs and survives: the project's (outages, mapped by the table) and any other
# refusal DynamoDB gives; the reader tries again next round.
LEASE_FAILURES = (CounterError, ClientError)
# The lease is free, ours, or expired.
TAKE_CONDITION = "attribute_not_exists(#pk) OR #owner = :me OR #until < :now"
RELEASE_CONDITION = "#owner = :me"


class Lease:
    """The stream's lease as one owner sees it."""

    def __init__(
        self,
        table: Table,
        *,
        owner: str,
        seconds: float,
        stream_of: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        # The lease item lives in our `table`; it is for the stream of `stream_of` (default: that table).
        self._table = table
        self._key = schema.lease_key(stream_of or table.name)
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
                logger.info("Stream reader %s holds the lease of table %s", self.owner, self._table.name)
            return True
        return self.held

    def release(self) -> None:
        """Give the lease up at once (a clean shutdown), so another worker need not wait for it to expire."""
        if self._renewed_at is None:
            return
        self._renewed_at = None
        try:
            self._table.delete_item(
                self._key,
                condition=RELEASE_CONDITION,
                names={"#owner": OWNER},
                values={":me": {"S": self.owner}},
            )
        except (ConditionFailed, *LEASE_FAILURES) as exc:
            logger.info("Stream lease not released (%s); it expires by itself", exc)

    def _takeable(self, now: float) -> bool:
        """Whether the lease item is absent, ours or expired (a strongly consistent read)."""
        try:
            item = self._table.get_item(self._key)
        except LEASE_FAILURES as exc:
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
            self._table.put_item(
                item,
                condition=TAKE_CONDITION,
                names={"#pk": schema.PK, "#owner": OWNER, "#until": UNTIL_MS},
                values={":me": {"S": self.owner}, ":now": {"N": str(int(now * 1000))}},
            )
        except ConditionFailed:
            if self._renewed_at is not None:
                logger.warning("Stream reader %s lost the lease to another worker", self.owner)
            self._renewed_at = None
            return False
        except LEASE_FAILURES as exc:
            logger.warning("Stream lease not renewed: %s", exc)
            return False
        self._renewed_at = now
        return True


def lease_status(
    table: Table, *, stream_of: str | None = None, clock: Callable[[], float] = time.time
) -> dict | None:
    """Who reads the stream, until when, and its lag as last reported (None: nobody holds the lease)."""
    item = table.get_item(schema.lease_key(stream_of or table.name))
    if not item:
        return None
    until = int(item[UNTIL_MS]["N"]) / 1000
    return {
        "owner": item[OWNER]["S"],
        "expires_in": round(until - clock(), 1),
        "live": until > clock(),
        "lag_seconds": int(item.get(LAG_MS, {}).get("N", "0")) / 1000,
    }
