"""The DynamoDB client factory: one thread-safe boto3 client per process and retry policy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import boto3
from botocore.config import Config
from django.core.exceptions import ImproperlyConfigured

from counters import conf
from counters.store.base import StoreHooks
from counters.store.dynamodb import outage
from counters.store.dynamodb.call_metrics import observe_calls

# Timeouts are short and bounded so an outage answers 503 quickly instead of hanging workers: a
# DynamoDB call takes milliseconds, so a second to connect and two to answer only ever cut off a
# store that is down or hung. A counted page makes one single-shot write, so a hung store costs a
# page at most one connect or read timeout (the views skip their reads once the write failed);
# a retrying read costs at most RETRY_ATTEMPTS times that plus the SDK's short backoff.
# Both are settings (COUNTERS_DYNAMODB_CONNECT_TIMEOUT, default 1 s; COUNTERS_DYNAMODB_READ_TIMEOUT,
# default 2 s; counters/conf.py), read when the clients are built.
RETRY_ATTEMPTS = 3
# The pool must cover the requests one worker has in flight at once: each runs its sync code on a
# thread of the worker's request pool (counters/web/asgi/asgi_handler.py, as many threads as this setting),
# so that is the worker's concurrency. Fewer connections than in-flight
# store calls and urllib3 opens a new connection per extra call and throws it away after (a TCP
# handshake on the hot path, and "Connection pool is full" warnings). COUNTERS_DYNAMODB_MAX_POOL.

# Why two retry policies: botocore retries a request whose response was lost or timed out, and
# for an `ADD` that means the increment may be applied twice. Writes that are not idempotent
# (plain increments) therefore go out exactly once (`total_max_attempts=1`) and a failure becomes
# a 503 the caller can see. Reads and transactional writes that carry their own idempotency
# record (votes, resets) are safe to resend, so they get the SDK's standard retries.


# A fixed User-Agent: botocore otherwise rebuilds its (metrics-laden) one twice per call, which was a
# third of the client's CPU per UpdateItem measured with the network left out. The session adds its
# own version to it.
USER_AGENT = "django-live-counters"


def client_config(*, attempts: int, connect_timeout: float, read_timeout: float, pool: int) -> Config:
    """A botocore config with bounded timeouts and `attempts` tries in all (1: never resend)."""
    return Config(
        connect_timeout=connect_timeout,
        read_timeout=read_timeout,
        retries={"mode": "standard", "total_max_attempts": attempts},
        max_pool_connections=pool,
        user_agent=USER_AGENT,
        # Every call's parameters are built in counters/store/ from validated names and fixed shapes, so
        # botocore's walk of the input shape only costs CPU: 900 Python calls of a vote's 4,100 (its
        # transaction's items are long lists of maps). DynamoDB validates each request anyway.
        parameter_validation=False,
    )


def single_shot_config(*, pool: int | None = None) -> Config:
    """The never-resending config of plain increments, with the settings' timeouts and pool."""
    return client_config(
        attempts=1,
        connect_timeout=conf.dynamodb_connect_timeout(),
        read_timeout=conf.dynamodb_read_timeout(),
        pool=pool or conf.dynamodb_max_pool(),
    )


@dataclass(frozen=True)
class Connection:
    """Where the store lives and how to sign requests to it."""

    endpoint_url: str | None
    region: str
    access_key_id: str | None = None
    secret_access_key: str | None = None
    # The embedded DynamoDB Local, started and supervised by this process (counters/embedded/).
    embedded: bool = False

    @property
    def commit_barrier(self) -> bool:
        """Whether a transaction is answered only after a read of it (table.py): on the embedded store only.

        DynamoDB Local answers a transaction before its SQLite COMMIT has run (docs/operations.md);
        Amazon DynamoDB (any DYNAMODB_ENDPOINT_URL) has committed it when it answers, so it never pays
        for the extra read.
        """
        return self.embedded


@dataclass(frozen=True)
class Clients:
    """The clients a store uses: one that never resends, one that retries, and one for the table's stream."""

    single_shot: Any
    retrying: Any
    # DynamoDB Streams (counters/streams/): reading a stream is idempotent, so it retries too.
    streams: Any = None


def resolve_connection(hooks: StoreHooks) -> Connection:
    """Use DYNAMODB_ENDPOINT_URL when set, else start or reuse the embedded DynamoDB Local (if allowed)."""
    if conf.endpoint_url():
        return Connection(endpoint_url=conf.endpoint_url(), region=conf.region())
    if not conf.embedded_dynamodb():
        raise ImproperlyConfigured(
            "DYNAMODB_ENDPOINT_URL is empty and the embedded DynamoDB Local is turned off here "
            "(COUNTERS_EMBEDDED_DYNAMODB). Set DYNAMODB_ENDPOINT_URL (e.g. https://dynamodb.<region>"
            ".amazonaws.com) or, for a demo machine only, COUNTERS_EMBEDDED_DYNAMODB=true."
        )
    from counters.embedded.supervisor import supervise

    # Watched from now on: started again if it dies; a new endpoint means new clients (hooks.moved).
    supervisor = supervise(
        conf.data_dir(), base_dir=conf.base_dir(), on_moved=hooks.moved, on_lost=hooks.lost
    )
    outage.when_unreachable(supervisor.wake)
    local = supervisor.current
    return Connection(
        endpoint_url=local.endpoint_url,
        region=local.region,
        access_key_id=local.access_key_id,
        secret_access_key=local.secret_access_key,
        embedded=True,
    )


def build_clients(connection: Connection) -> Clients:
    """Build both clients from one session (sessions are not thread-safe, clients are)."""
    session = boto3.session.Session(
        aws_access_key_id=connection.access_key_id,
        aws_secret_access_key=connection.secret_access_key,
        region_name=connection.region,
    )
    kwargs = {"endpoint_url": connection.endpoint_url} if connection.endpoint_url else {}
    single_shot = single_shot_config()
    retrying = client_config(
        attempts=RETRY_ATTEMPTS,
        connect_timeout=conf.dynamodb_connect_timeout(),
        read_timeout=conf.dynamodb_read_timeout(),
        pool=conf.dynamodb_max_pool(),
    )
    # Every call is timed and its failures counted by botocore's event hooks (call_metrics.py).
    return Clients(
        single_shot=observe_calls(session.client("dynamodb", config=single_shot, **kwargs)),
        retrying=observe_calls(session.client("dynamodb", config=retrying, **kwargs)),
        streams=session.client("dynamodbstreams", config=retrying, **kwargs),
    )
