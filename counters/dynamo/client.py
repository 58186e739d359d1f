"""The DynamoDB client factory: one thread-safe boto3 client per process and retry policy."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import boto3
from botocore.config import Config

from counters import conf

# Timeouts are short and bounded so an outage answers 503 quickly instead of hanging workers.
CONNECT_TIMEOUT = 2
READ_TIMEOUT = 5
# The pool covers the worker's threads (daphne runs sync views in a thread pool).
MAX_POOL_CONNECTIONS = 64

# Why two retry policies: botocore retries a request whose response was lost or timed out, and
# for an `ADD` that means the increment may be applied twice. Writes that are not idempotent
# (plain increments) therefore go out exactly once (`total_max_attempts=1`) and a failure becomes
# a 503 the caller can see. Reads and transactional writes that carry their own idempotency
# record (votes, resets) are safe to resend, so they get the SDK's standard retries.
SINGLE_SHOT = Config(
    connect_timeout=CONNECT_TIMEOUT,
    read_timeout=READ_TIMEOUT,
    retries={"mode": "standard", "total_max_attempts": 1},
    max_pool_connections=MAX_POOL_CONNECTIONS,
)
RETRYING = Config(
    connect_timeout=CONNECT_TIMEOUT,
    read_timeout=READ_TIMEOUT,
    retries={"mode": "standard", "total_max_attempts": 3},
    max_pool_connections=MAX_POOL_CONNECTIONS,
)


@dataclass(frozen=True)
class Connection:
    """Where the store lives and how to sign requests to it."""

    endpoint_url: str | None
    region: str
    access_key_id: str | None = None
    secret_access_key: str | None = None


@dataclass(frozen=True)
class Clients:
    """The two clients a store uses: one that never resends, one that retries."""

    single_shot: Any
    retrying: Any


_lock = threading.Lock()


def resolve_connection() -> Connection:
    """Use DYNAMODB_ENDPOINT_URL when set, else start or reuse the embedded DynamoDB Local."""
    if conf.endpoint_url():
        return Connection(endpoint_url=conf.endpoint_url(), region=conf.region())
    from counters.dynamo.local import ensure_running

    local = ensure_running(conf.data_dir(), base_dir=conf.base_dir())
    return Connection(
        endpoint_url=local.endpoint_url,
        region=local.region,
        access_key_id=local.access_key_id,
        secret_access_key=local.secret_access_key,
    )


def build_clients(connection: Connection) -> Clients:
    """Build both clients from one session (sessions are not thread-safe, clients are)."""
    session = boto3.session.Session(
        aws_access_key_id=connection.access_key_id,
        aws_secret_access_key=connection.secret_access_key,
        region_name=connection.region,
    )
    kwargs = {"endpoint_url": connection.endpoint_url} if connection.endpoint_url else {}
    return Clients(
        single_shot=session.client("dynamodb", config=SINGLE_SHOT, **kwargs),
        retrying=session.client("dynamodb", config=RETRYING, **kwargs),
    )


@lru_cache(maxsize=1)
def _cached_clients() -> Clients:
    return build_clients(resolve_connection())


def get_clients() -> Clients:
    """Return this process's clients, built once."""
    with _lock:
        return _cached_clients()


def clear_clients() -> None:
    """Forget the cached clients (settings changed, or tests switching stores)."""
    with _lock:
        _cached_clients.cache_clear()
