"""Settings of the counters app: every name, its default and its type in one table, read lazily.

A project sets any of these in its Django settings; the demo site fills them from environment
variables of the same name (`environment_settings`). Values are read at use, never at import, so
`override_settings` works in tests, and strings from the environment are converted here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

RATE_PATTERN = re.compile(r"^(?P<count>\d+)/(?P<unit>[smhd])$")
RATE_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})


def as_list(raw: Any) -> tuple[str, ...]:
    """A list setting: a list or tuple, or comma-separated text from the environment."""
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    return tuple(str(item).strip() for item in items if str(item).strip())


def as_bool(raw: Any) -> bool:
    """A boolean setting: a bool, or one of 1/true/yes/on from the environment."""
    return raw if isinstance(raw, bool) else str(raw).strip().lower() in TRUE_WORDS


@dataclass(frozen=True)
class Setting:
    """One setting: its default and how a raw value (maybe a string from the environment) is read."""

    default: Any
    parse: Callable[[Any], Any] = str


# Every setting of the app. Timeouts are short and bounded so an outage answers 503 quickly instead of
# hanging workers (see counters/store/dynamodb/clients.py).
SETTINGS: dict[str, Setting] = {
    # Where counters live. An empty endpoint means the embedded DynamoDB Local (when allowed).
    "DYNAMODB_ENDPOINT_URL": Setting(""),
    "AWS_REGION": Setting("us-east-1"),
    "COUNTERS_TABLE": Setting("counters"),
    "COUNTERS_STORE_BACKEND": Setting("counters.store.dynamodb.backend.DynamoCounterStore"),
    # May an empty endpoint start DynamoDB Local (Java, from node_modules)? Developer tooling: off unless a
    # project asks (the demo site does; its production settings only when told to).
    "COUNTERS_EMBEDDED_DYNAMODB": Setting(False, as_bool),
    "COUNTERS_DATA_DIR": Setting(None, Path),  # None: <BASE_DIR>/var
    "COUNTERS_DYNAMODB_CONNECT_TIMEOUT": Setting(1.0, float),
    "COUNTERS_DYNAMODB_READ_TIMEOUT": Setting(2.0, float),
    # Connections per DynamoDB client: at least the requests one worker serves at once.
    "COUNTERS_DYNAMODB_MAX_POOL": Setting(64, int),
    # Votes: per-address allowance, generous enough for a room behind one address (`0` turns it off),
    # per-voter allowance (a voter is a signed cookie or a user), key lifetime, bulkhead.
    "COUNTERS_VOTE_RATE": Setting("3000/m"),
    "COUNTERS_VOTER_RATE": Setting("30/m"),
    "COUNTERS_IDEMPOTENCY_TTL": Setting(24 * 3600, int),
    "COUNTERS_VOTE_CONCURRENCY": Setting(8, int),
    "COUNTERS_VOTE_QUEUE_SECONDS": Setting(15.0, float),
    "COUNTERS_VOTER_COOKIE": Setting("counters_voter"),
    # Proxies in front of the site that append to X-Forwarded-For; 0: the client is REMOTE_ADDR.
    "COUNTERS_PROXY_COUNT": Setting(0, int),
    # Views whose user agent is a crawler, preview fetcher or headless client go to `bot_views`.
    "COUNTERS_COUNT_BOTS_APART": Setting(True, as_bool),
    # Background work and the live push.
    "COUNTERS_HISTORY_FLUSH_SECONDS": Setting(1.0, float),
    "COUNTERS_BROADCAST_INTERVAL": Setting(0.1, float),
    # Each relay's message round its channel layer, and every page's sign of life (live/heartbeat.py).
    "COUNTERS_HEARTBEAT_SECONDS": Setting(2.0, float),
    # Live sockets one address and one browser (voter cookie) may hold open per worker; 0: no limit.
    # Room for 1,000 people behind one address, a tab or two each (counters/live/socket_limits.py).
    "COUNTERS_SOCKETS_PER_ADDRESS": Setting(1200, int),
    "COUNTERS_SOCKETS_PER_VOTER": Setting(10, int),
    # With Redis, a worker's "viewing now" counts expire this long after its last heartbeat (a third of it).
    "COUNTERS_PRESENCE_TTL": Setting(15.0, float),
    # Largest request body the JSON API reads; beacons and votes need a few bytes.
    "COUNTERS_API_MAX_BODY_BYTES": Setting(16 * 1024, int),
    # Operations: /metrics answers only a request bearing this token (empty: /metrics is off), and
    # /readyz waits this long for each part it checks (docs/operations.md).
    "COUNTERS_METRICS_TOKEN": Setting(""),
    "COUNTERS_READY_TIMEOUT": Setting(1.0, float),
    # The table's stream (docs/streams.md): `worker` reads it in whichever web worker holds the lease
    # (when the table has a stream); `off` leaves it to `manage.py counters_stream` (or nobody). Reads
    # every poll; the lease in seconds: a reader that dies is followed within 9/8 of it.
    "COUNTERS_STREAM_READER": Setting("worker", lambda raw: stream_reader_mode(str(raw))),
    "COUNTERS_STREAM_POLL_SECONDS": Setting(0.25, float),
    "COUNTERS_STREAM_LEASE_SECONDS": Setting(2.0, float),
    # Watched counters in a table without a stream: each item read (strongly consistent) this often.
    "COUNTERS_WATCH_POLL_SECONDS": Setting(1.0, float),
    # Whole site (docs/whole-site.md): count every HTML page the site serves (SitePagesMiddleware),
    # which paths count (regular expressions; the admin, static files and the API never do), how many
    # pages may be created at their first view, and how long a path may be.
    "COUNTERS_SITE_PAGES": Setting(False, as_bool),
    "COUNTERS_SITE_INCLUDE": Setting("", as_list),
    "COUNTERS_SITE_EXCLUDE": Setting("", as_list),
    "COUNTERS_SITE_MAX_PAGES": Setting(1000, int),
    "COUNTERS_SITE_MAX_PATH": Setting(512, int),
    # Origins whose pages may send the site beacon (site.js), e.g. `https://docs.example.com`, and the
    # beacons one address may send per `s`/`m`/`h`/`d` (`0` turns the limit off).
    "COUNTERS_SITE_ORIGINS": Setting("", as_list),
    "COUNTERS_BEACON_RATE": Setting("600/m"),
}

STREAM_READER_MODES = ("off", "worker")


def stream_reader_mode(raw: str) -> str:
    """`off` or `worker`."""
    mode = raw.strip().lower()
    if mode not in STREAM_READER_MODES:
        raise ValueError(f"it must be one of {', '.join(STREAM_READER_MODES)}")
    return mode


def environment_settings(environ: Mapping[str, str]) -> dict[str, str]:
    """The app's settings that `environ` sets (for a settings module that reads the environment)."""
    return {name: environ[name] for name in SETTINGS if name in environ}


def value(name: str) -> Any:
    """The current value of one of the app's settings, converted to its type."""
    spec = SETTINGS[name]
    raw = getattr(settings, name, None)
    # An empty environment variable means "the default" for numbers, paths and switches; for text it
    # is a value (COUNTERS_VOTE_RATE="" turns the limit off, as `0` does).
    if raw is None or (raw == "" and spec.parse is not str):
        return spec.default
    return spec.parse(raw)


def check_settings() -> list[str]:
    """Parse every setting now; return a sentence per value that cannot be read."""
    problems = []
    for name in SETTINGS:
        try:
            value(name)
        except (TypeError, ValueError) as exc:
            problems.append(f"{name}={getattr(settings, name, None)!r} cannot be read: {exc}")
    for rate in (vote_rate, voter_rate, beacon_rate):
        try:
            rate()
        except ImproperlyConfigured as exc:
            problems.append(str(exc))
    return problems


@dataclass(frozen=True)
class Rate:
    """An allowance of `count` events per `seconds`; count 0 means unlimited."""

    count: int
    seconds: int

    @property
    def unlimited(self) -> bool:
        """Say whether the limit is turned off."""
        return self.count == 0


def parse_rate(raw: str, *, setting: str = "COUNTERS_VOTE_RATE") -> Rate:
    """Parse a rate such as `30/m`; `0` turns the limit off."""
    raw = (raw or "").strip()
    if raw in {"", "0"}:
        return Rate(0, 1)
    match = RATE_PATTERN.match(raw)
    if not match:
        raise ImproperlyConfigured(f"{setting} must look like 30/m or 0, not {raw!r}.")
    return Rate(int(match["count"]), RATE_UNIT_SECONDS[match["unit"]])


def table_name() -> str:
    """Name of the DynamoDB table holding every counter."""
    return value("COUNTERS_TABLE")


def endpoint_url() -> str:
    """Explicit DynamoDB endpoint, or '' for the embedded DynamoDB Local."""
    return value("DYNAMODB_ENDPOINT_URL")


def region() -> str:
    """AWS region for the DynamoDB client."""
    return value("AWS_REGION")


def embedded_dynamodb() -> bool:
    """Whether an empty endpoint may start the embedded DynamoDB Local."""
    return value("COUNTERS_EMBEDDED_DYNAMODB")


def base_dir() -> Path:
    """Project root, where node_modules holds DynamoDB Local."""
    return Path(settings.BASE_DIR)


def data_dir() -> Path:
    """Directory holding the embedded store's data (default: <BASE_DIR>/var)."""
    return value("COUNTERS_DATA_DIR") or base_dir() / "var"


def store_backend() -> str:
    """Dotted path of the counter store backend class."""
    return value("COUNTERS_STORE_BACKEND")


def dynamodb_connect_timeout() -> float:
    """Seconds to wait for a connection to DynamoDB."""
    return value("COUNTERS_DYNAMODB_CONNECT_TIMEOUT")


def dynamodb_read_timeout() -> float:
    """Seconds to wait for DynamoDB's answer."""
    return value("COUNTERS_DYNAMODB_READ_TIMEOUT")


def dynamodb_max_pool() -> int:
    """Connections each DynamoDB client keeps: at least the requests a worker serves at once."""
    return value("COUNTERS_DYNAMODB_MAX_POOL")


def vote_rate() -> Rate:
    """Per-address vote allowance."""
    return parse_rate(value("COUNTERS_VOTE_RATE"))


def voter_rate() -> Rate:
    """Per-voter vote allowance."""
    return parse_rate(value("COUNTERS_VOTER_RATE"), setting="COUNTERS_VOTER_RATE")


def idempotency_ttl() -> int:
    """Seconds an Idempotency-Key keeps answering with its first result (default 24 h)."""
    return value("COUNTERS_IDEMPOTENCY_TTL")


def vote_concurrency() -> int:
    """Vote writes a process sends to the store at once; more wait their turn (0: no limit)."""
    return value("COUNTERS_VOTE_CONCURRENCY")


def vote_queue_seconds() -> float:
    """How long a vote waits for its turn before the answer is a 503."""
    return value("COUNTERS_VOTE_QUEUE_SECONDS")


def voter_cookie() -> str:
    """Name of the signed cookie that identifies an anonymous voter."""
    return value("COUNTERS_VOTER_COOKIE")


def proxy_count() -> int:
    """Proxies in front of the site that append to X-Forwarded-For; 0 trusts only REMOTE_ADDR."""
    return value("COUNTERS_PROXY_COUNT")


def count_bots_separately() -> bool:
    """Whether views from bots go to `bot_views` instead of the views and unique visitors."""
    return value("COUNTERS_COUNT_BOTS_APART")


def history_flush_seconds() -> float:
    """How often each process writes its tallied history buckets."""
    return value("COUNTERS_HISTORY_FLUSH_SECONDS")


def broadcast_interval() -> float:
    """Least time between two live-push group messages of one process (seconds)."""
    return value("COUNTERS_BROADCAST_INTERVAL")


def heartbeat_seconds() -> float:
    """Seconds between two heartbeats of the live push (0: none); a page silent for three reconnects."""
    return max(value("COUNTERS_HEARTBEAT_SECONDS"), 0.0)


def sockets_per_address() -> int:
    """Live sockets one address may hold open on a worker (0: no limit)."""
    return value("COUNTERS_SOCKETS_PER_ADDRESS")


def sockets_per_voter() -> int:
    """Live sockets one browser (its voter cookie) may hold open on a worker (0: no limit)."""
    return value("COUNTERS_SOCKETS_PER_VOTER")


def presence_ttl() -> float:
    """Seconds a worker's viewing-now counts outlive its last heartbeat; it beats every third of this."""
    return value("COUNTERS_PRESENCE_TTL")


def api_max_body_bytes() -> int:
    """Largest request body the JSON API reads."""
    return value("COUNTERS_API_MAX_BODY_BYTES")


def metrics_token() -> str:
    """The bearer token a scrape of /metrics must send; empty turns /metrics off."""
    return value("COUNTERS_METRICS_TOKEN")


def ready_timeout() -> float:
    """Seconds /readyz waits for each part it checks (the store, Redis)."""
    return value("COUNTERS_READY_TIMEOUT")


def stream_reader() -> str:
    """Where the table's stream is read: `worker` (in the web worker holding the lease) or `off`."""
    return value("COUNTERS_STREAM_READER")


def stream_poll_seconds() -> float:
    """Seconds between two reads of each stream shard while caught up."""
    return max(value("COUNTERS_STREAM_POLL_SECONDS"), 0.05)


def stream_lease_seconds() -> float:
    """Seconds the stream's lease lasts unless renewed: how soon another worker takes over a dead reader."""
    return max(value("COUNTERS_STREAM_LEASE_SECONDS"), 1.0)


def watch_poll_seconds() -> float:
    """Seconds between two strongly consistent reads of each watched item whose table has no stream."""
    return max(value("COUNTERS_WATCH_POLL_SECONDS"), 0.1)


def site_pages() -> bool:
    """Whether SitePagesMiddleware counts every HTML page the site serves."""
    return value("COUNTERS_SITE_PAGES")


def site_include() -> tuple[str, ...]:
    """Patterns a path must match one of to count (none: every path)."""
    return as_list(value("COUNTERS_SITE_INCLUDE"))


def site_exclude() -> tuple[str, ...]:
    """Patterns of paths that never count."""
    return as_list(value("COUNTERS_SITE_EXCLUDE"))


def site_max_pages() -> int:
    """How many pages may be created at their first view."""
    return value("COUNTERS_SITE_MAX_PAGES")


def site_max_path() -> int:
    """Longest page path accepted (longer is a 400 at the beacon, uncounted by the middleware)."""
    return value("COUNTERS_SITE_MAX_PATH")


def site_origins() -> tuple[str, ...]:
    """Origins whose pages may send the site beacon."""
    return as_list(value("COUNTERS_SITE_ORIGINS"))


def beacon_rate() -> Rate:
    """Per-address allowance of site beacons."""
    return parse_rate(value("COUNTERS_BEACON_RATE"), setting="COUNTERS_BEACON_RATE")
