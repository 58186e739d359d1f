"""Map botocore failures to the project's own exceptions, by error code."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from botocore.exceptions import BotoCoreError, ClientError, ConnectionError, HTTPClientError

from counters.exceptions import StoreUnavailable

# Codes that mean "nothing was written, try later": they become a 503 with Retry-After.
UNAVAILABLE_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
        "ResourceNotFoundException",
    }
)
THROTTLE_CODES = frozenset(
    {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}
)


def error_code(exc: ClientError) -> str:
    """The AWS error code of a ClientError."""
    return exc.response.get("Error", {}).get("Code", "")


@contextmanager
def unavailable_on_outage() -> Iterator[None]:
    """Turn throttling, outages and timeouts into StoreUnavailable; re-raise anything else."""
    try:
        yield
    except ClientError as exc:
        code = error_code(exc)
        if code in UNAVAILABLE_CODES:
            retry_after = 2 if code in THROTTLE_CODES else 5
            raise StoreUnavailable(
                "The counter store is busy or unavailable; nothing was changed. Try again shortly.",
                retry_after=retry_after,
            ) from exc
        raise
    except (ConnectionError, HTTPClientError, BotoCoreError) as exc:
        raise StoreUnavailable(
            "The counter store cannot be reached right now; try again shortly.", retry_after=5
        ) from exc
