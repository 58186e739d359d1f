"""Configuration errors told apart from outages: what is wrong with the store's settings, and the fix.

An outage passes (a restart, throttling, a cut connection); these do not until someone changes a
setting: no credentials, credentials the store refuses, an endpoint that has never answered since the
store was built (a wrong DYNAMODB_ENDPOINT_URL or AWS_REGION), or a missing table.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import (
    ClientError,
    EndpointConnectionError,
    NoCredentialsError,
    PartialCredentialsError,
)

from counters.exceptions import StoreMisconfigured

logger = logging.getLogger(__name__)

# DynamoDB's answers to a request whose credentials, signature or permissions it does not accept.
CREDENTIAL_CODES = frozenset(
    {
        "UnrecognizedClientException",
        "InvalidSignatureException",
        "IncompleteSignatureException",
        "MissingAuthenticationTokenException",
        "InvalidClientTokenId",
        "ExpiredTokenException",
        "AccessDeniedException",
    }
)
TABLE_MISSING = "ResourceNotFoundException"

NO_CREDENTIALS = (
    "The counter store is not configured: this server has no AWS credentials. Set AWS_ACCESS_KEY_ID and "
    "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) in its environment and restart it; for DynamoDB Local any "
    "non-empty pair will do."
)
NEVER_ANSWERED = (
    "The counter store is not configured correctly: nothing has answered at its endpoint since this "
    "server started. Check DYNAMODB_ENDPOINT_URL and AWS_REGION, or start DynamoDB Local "
    "(see the counters app's guide, docs/add-to-your-project.md)."
)
REFUSED = (
    "The counter store refused this server's AWS credentials ({code}). Check AWS_ACCESS_KEY_ID and "
    "AWS_SECRET_ACCESS_KEY, that AWS_REGION is the region of DYNAMODB_ENDPOINT_URL, and that these "
    "credentials may use the table."
)
NO_TABLE = (
    "The counters table does not exist in this store; nothing was changed. Run "
    "`python manage.py counters_init` to create it, or set COUNTERS_TABLE, AWS_REGION and "
    "DYNAMODB_ENDPOINT_URL to where it is."
)


@dataclass
class StoreReach:
    """Where one store's clients point, and whether the store has answered them since they were built."""

    endpoint: str
    region: str
    table: str
    # The embedded DynamoDB Local is started and restarted by this process: not answering is an outage.
    embedded: bool = False
    answered: bool = False

    @classmethod
    def of(cls, client: Any, *, table: str, embedded: bool = False) -> StoreReach:
        """The reach of a boto3 client (stand-ins without `meta` give empty names)."""
        meta = getattr(client, "meta", None)
        return cls(
            endpoint=str(getattr(meta, "endpoint_url", "") or ""),
            region=str(getattr(meta, "region_name", "") or ""),
            table=table,
            embedded=embedded,
        )

    def where(self) -> str:
        """The names an operator needs in the log (never shown to a visitor)."""
        return f"endpoint {self.endpoint or '?'}, region {self.region or '?'}, table {self.table!r}"


def misconfiguration(exc: BaseException, reach: StoreReach | None) -> StoreMisconfigured | None:
    """The configuration error `exc` reveals (logged with where the store points), or None for an outage."""
    found = _classify(exc, reach)
    if found is not None:
        logger.error(
            "Counter store misconfigured (%s): %s [%s: %s]",
            found.where,
            found.detail,
            type(exc).__name__,
            exc,
        )
    return found


def _classify(exc: BaseException, reach: StoreReach | None) -> StoreMisconfigured | None:
    """The configuration error `exc` reveals, or None when it is an outage (or no store error at all)."""
    where = reach.where() if reach is not None else ""
    if isinstance(exc, NoCredentialsError | PartialCredentialsError):
        return StoreMisconfigured(NO_CREDENTIALS, where=where)
    if isinstance(exc, ClientError):
        code = exc.response.get("Error", {}).get("Code", "")
        if code in CREDENTIAL_CODES:
            return StoreMisconfigured(REFUSED.format(code=code), where=where)
        if code == TABLE_MISSING:
            return StoreMisconfigured(NO_TABLE, where=where)
        return None
    first_contact = reach is not None and not reach.answered and not reach.embedded
    if isinstance(exc, EndpointConnectionError) and first_contact:
        return StoreMisconfigured(NEVER_ANSWERED, where=where)
    return None
