"""Settings of the counters app in one place, read lazily so override_settings works."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

RATE_PATTERN = re.compile(r"^(?P<count>\d+)/(?P<unit>[smhd])$")
RATE_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class Rate:
    """An allowance of `count` events per `seconds`; count 0 means unlimited."""

    count: int
    seconds: int

    @property
    def unlimited(self) -> bool:
        """Say whether the limit is turned off."""
        return self.count == 0


def parse_rate(raw: str) -> Rate:
    """Parse a rate such as `30/m`; `0` turns the limit off."""
    raw = (raw or "").strip()
    if raw in {"", "0"}:
        return Rate(0, 1)
    match = RATE_PATTERN.match(raw)
    if not match:
        raise ImproperlyConfigured(f"COUNTERS_VOTE_RATE must look like 30/m or 0, not {raw!r}.")
    return Rate(int(match["count"]), RATE_UNIT_SECONDS[match["unit"]])


def table_name() -> str:
    """Name of the DynamoDB table holding every counter."""
    return settings.COUNTERS_TABLE


def endpoint_url() -> str:
    """Explicit DynamoDB endpoint, or '' for the embedded DynamoDB Local."""
    return getattr(settings, "DYNAMODB_ENDPOINT_URL", "") or ""


def region() -> str:
    """AWS region for the DynamoDB client."""
    return getattr(settings, "AWS_REGION", "us-east-1") or "us-east-1"


def data_dir() -> Path:
    """Directory holding the embedded store's data and the SQLite database."""
    return Path(settings.COUNTERS_DATA_DIR)


def base_dir() -> Path:
    """Project root, where node_modules holds DynamoDB Local."""
    return Path(settings.BASE_DIR)


def vote_rate() -> Rate:
    """Per-IP vote allowance."""
    return parse_rate(getattr(settings, "COUNTERS_VOTE_RATE", "30/m"))


def store_backend() -> str:
    """Dotted path of the counter store backend class."""
    return getattr(settings, "COUNTERS_STORE_BACKEND", "counters.store.dynamodb.DynamoCounterStore")


def seed_demo() -> bool:
    """Whether a newly created table gets the demo pages and polls."""
    return bool(getattr(settings, "COUNTERS_SEED_DEMO", True))


def history_flush_seconds() -> float:
    """How often each process writes its tallied history buckets."""
    return float(getattr(settings, "COUNTERS_HISTORY_FLUSH_SECONDS", 1.0))
