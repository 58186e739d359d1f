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


def dynamodb_max_pool() -> int:
    """Connections each DynamoDB client keeps: at least the requests a worker serves at once."""
    return int(getattr(settings, "COUNTERS_DYNAMODB_MAX_POOL", 64))


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


def broadcast_interval() -> float:
    """Least time between two live-push group messages of one process (seconds)."""
    return float(getattr(settings, "COUNTERS_BROADCAST_INTERVAL", 0.1))


def idempotency_ttl() -> int:
    """Seconds an Idempotency-Key keeps answering with its first result (default 24 h)."""
    return int(getattr(settings, "COUNTERS_IDEMPOTENCY_TTL", 86400))


def proxy_count() -> int:
    """Proxies in front of the site that append to X-Forwarded-For; 0 trusts only REMOTE_ADDR."""
    return int(getattr(settings, "COUNTERS_PROXY_COUNT", 0))


def voter_cookie() -> str:
    """Name of the signed cookie that identifies an anonymous voter."""
    return getattr(settings, "COUNTERS_VOTER_COOKIE", "counters_voter")


def vote_concurrency() -> int:
    """Vote writes a process sends to the store at once; more wait their turn (0: no limit)."""
    return int(getattr(settings, "COUNTERS_VOTE_CONCURRENCY", 8))


def vote_queue_seconds() -> float:
    """How long a vote waits for its turn before the answer is a 503."""
    return float(getattr(settings, "COUNTERS_VOTE_QUEUE_SECONDS", 15))


def dynamodb_connect_timeout(default: float) -> float:
    """Seconds to wait for a connection to DynamoDB (COUNTERS_DYNAMODB_CONNECT_TIMEOUT)."""
    return float(getattr(settings, "COUNTERS_DYNAMODB_CONNECT_TIMEOUT", default))


def dynamodb_read_timeout(default: float) -> float:
    """Seconds to wait for DynamoDB's answer (COUNTERS_DYNAMODB_READ_TIMEOUT)."""
    return float(getattr(settings, "COUNTERS_DYNAMODB_READ_TIMEOUT", default))


def api_max_body_bytes() -> int:
    """Largest request body the JSON API reads; beacons and votes need a few bytes."""
    return int(getattr(settings, "COUNTERS_API_MAX_BODY_BYTES", 16 * 1024))
