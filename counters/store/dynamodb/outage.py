"""Map botocore failures to the project's own exceptions, by error code."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectionClosedError,
    ConnectionError,
    HTTPClientError,
    ReadTimeoutError,
)

from counters.exceptions import OutcomeUnknown, StoreUnavailable
from counters.store.dynamodb.misconfigured import StoreReach, misconfiguration

logger = logging.getLogger(__name__)

# Codes that mean "nothing was written, try later": they become a 503 with Retry-After.
UNAVAILABLE_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
    }
)
THROTTLE_CODES = frozenset(
    {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}
)


def error_code(exc: ClientError) -> str:
    """The AWS error code of a ClientError."""
    return exc.response.get("Error", {}).get("Code", "")


# DynamoDB's own word that a request may or may not have been applied.
MAYBE_APPLIED_CODES = frozenset({"InternalServerError"})

# Failures after the request went out: DynamoDB may have applied it. For a write sent once (never
# resent by the SDK, see counters/store/dynamodb/clients.py) that means "counted once or not at all".
AFTER_SENDING = (ConnectionClosedError, ReadTimeoutError)

# Told when a call could not reach the store (refused, cut, timed out): the embedded store's supervisor
# looks at once whether DynamoDB Local died, instead of at its next round.
_unreachable_listeners: set[Callable[[], None]] = set()


def when_unreachable(listener: Callable[[], None]) -> None:
    """Call `listener` (cheap, never blocking) whenever a call cannot reach the store; once per listener."""
    _unreachable_listeners.add(listener)


def _tell_unreachable() -> None:
    """Tell every listener; a failing listener never turns an outage into another error."""
    for listener in list(_unreachable_listeners):
        try:
            listener()
        except Exception:
            logger.exception("A store-unreachable listener failed")


@contextmanager
def unavailable_on_outage(*, write: bool = False, reach: StoreReach | None = None) -> Iterator[None]:
    """Turn throttling, outages and timeouts into StoreUnavailable; re-raise anything else.

    With `write`, a lost answer becomes OutcomeUnknown so the caller is not told "nothing changed".
    A configuration error (misconfigured.py) becomes StoreMisconfigured; `reach`, when given, learns
    whether the store has answered, so an endpoint that never has is told apart from one that went down.
    """
    try:
        yield
    except AFTER_SENDING as exc:
        _tell_unreachable()
        if write:
            raise OutcomeUnknown(
                "The counter store did not answer in time; this write counted once or not at all. "
                "Reload to see the total before trying again.",
                retry_after=5,
            ) from exc
        raise StoreUnavailable(
            "The counter store cannot be reached right now; try again shortly.", retry_after=5
        ) from exc
    except ClientError as exc:
        if reach is not None:
            reach.answered = True
        mapped = misconfiguration(exc, reach) or outage_error(error_code(exc), write=write)
        if mapped is None:
            raise
        raise mapped from exc
    except (ConnectionError, HTTPClientError, BotoCoreError) as exc:
        misconfigured = misconfiguration(exc, reach)
        if misconfigured is not None:
            raise misconfigured from exc
        _tell_unreachable()
        raise StoreUnavailable(
            "The counter store cannot be reached right now; try again shortly.", retry_after=5
        ) from exc
    else:
        if reach is not None:
            reach.answered = True


def outage_error(code: str, *, write: bool) -> Exception | None:
    """The project's exception for an AWS error code that means an outage, or None for any other code."""
    if write and code in MAYBE_APPLIED_CODES:
        return OutcomeUnknown(
            "The counter store failed while writing; this write counted once or not at all. "
            "Reload to see the total before trying again.",
            retry_after=5,
        )
    if code in UNAVAILABLE_CODES:
        retry_after = 2 if code in THROTTLE_CODES else 5
        return StoreUnavailable(
            "The counter store is busy or unavailable; nothing was changed. Try again shortly.",
            retry_after=retry_after,
            refused=code in THROTTLE_CODES,
        )
    return None
