"""Per-IP rate limits of votes and site beacons (`limits`, fixed window): shared in Redis, else per process.

A window is kept under a keyed hash of the address, never the address itself, so neither Redis nor
this process's memory holds who voted, even for the length of a window.
"""

from __future__ import annotations

import functools
import logging
import math
import threading
import time

from django.conf import settings
from django.http import HttpRequest
from django.utils.crypto import salted_hmac
from limits import RateLimitItem, RateLimitItemPerSecond
from limits.errors import ConfigurationError, StorageError
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import FixedWindowRateLimiter

from counters import conf
from counters.domain.addresses import trusted_address
from counters.exceptions import RateLimited
from counters.runtime import runtime

CACHE_ALIAS = "default"
SCOPE = "counters-vote"
VOTER_SCOPE = "counters-voter"
# A vote waits at most this long on a hung Redis before it is counted per process instead.
REDIS_TIMEOUT_SECONDS = 1.0
# The HMAC key is derived from SECRET_KEY under this salt; 128 bits of the digest keep addresses apart.
KEY_SALT = "counters.web.http.ratelimit.address"
KEY_HEX_CHARS = 32

logger = logging.getLogger(__name__)


def client_ip(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or the entry our own proxies added to X-Forwarded-For."""
    meta = request.META
    return trusted_address(
        meta.get("REMOTE_ADDR", ""), meta.get("HTTP_X_FORWARDED_FOR", ""), proxies=conf.proxy_count()
    )


def address_key(address: str) -> str:
    """The key an address is counted under: HMAC-SHA256 keyed from SECRET_KEY, truncated, not the address."""
    return salted_hmac(KEY_SALT, address, algorithm="sha256").hexdigest()[:KEY_HEX_CHARS]


def check_vote_rate(request: HttpRequest, voter: str) -> None:
    """Count one vote request of this voter and from this address; RateLimited once over either rate.

    Per voter (the signed voter cookie, or the user) is what stops one person voting too fast; per
    address, generous so a room of 1,000 behind one Wi-Fi votes within a minute under the default, it
    bounds a script that mints a new anonymous voter per request (docs/polls.md).
    """
    check_rate(conf.voter_rate(), address=voter, scope=VOTER_SCOPE, what="votes", whose="from one voter")
    check_rate(conf.vote_rate(), address=client_ip(request), scope=SCOPE, what="votes")


def check_rate(
    rate: conf.Rate, *, address: str, scope: str, what: str, whose: str = "from one address"
) -> None:
    """Count one request of `scope` from `address` in the current window; RateLimited once over `rate`."""
    if rate.unlimited:
        return
    limit = RateLimitItemPerSecond(rate.count, rate.seconds)
    key = address_key(address)
    try:
        retry_after = seconds_to_wait(shared_limiter(), limit, key, scope=scope)
    except (StorageError, OSError) as exc:
        # A Redis outage must not stop voting or counting: limit per process until it is back.
        logger.warning("Rate limit of %s counted per process, the shared cache is unreachable: %s", what, exc)
        retry_after = seconds_to_wait(local_limiter(), limit, key, scope=scope)
    except ConfigurationError as exc:
        # A cache address `limits` cannot use must not turn requests into errors either; say so loudly.
        logger.error("Rate limit of %s counted per process, the cache address is not usable: %s", what, exc)
        retry_after = seconds_to_wait(local_limiter(), limit, key, scope=scope)
    if retry_after:
        raise RateLimited(
            f"At most {rate.count} {what} per {rate.seconds} s {whose}; retry in {retry_after} s.",
            retry_after=retry_after,
        )


def seconds_to_wait(
    limiter: FixedWindowRateLimiter, limit: RateLimitItem, key: str, *, scope: str = SCOPE
) -> int:
    """Count one request under `key`: 0 if it is within `limit`, else the seconds until its window ends."""
    if limiter.hit(limit, scope, key):
        return 0
    # Read only when refusing, so an allowed vote costs one round trip to Redis.
    reset_at = limiter.get_window_stats(limit, scope, key).reset_time
    return max(1, math.ceil(reset_at - time.time()))


class VoteLimiter:
    """This process's vote limiters: the one every worker shares, and its own for when that is unreachable."""

    @classmethod
    def from_settings(cls, process: object = None) -> VoteLimiter:
        """Limiters for the settings' default cache, built at first use."""
        return cls()

    @functools.cached_property
    def shared(self) -> FixedWindowRateLimiter:
        """The Redis behind the default cache, or this process's own without one."""
        cache = settings.CACHES.get(CACHE_ALIAS, {})
        if not cache.get("BACKEND", "").endswith(".RedisCache"):
            return self.local
        location = cache["LOCATION"]
        # Django's RedisCache writes to the first of several servers; so do we.
        primary = (location.split(",") if isinstance(location, str) else location)[0]
        if primary.startswith("unix://"):
            primary = "redis+" + primary  # Django's RedisCache says unix://, `limits` redis+unix://
        storage = storage_from_string(
            primary,
            # The cache's prefix keeps sites (and tests) that share one Redis apart.
            key_prefix=cache.get("KEY_PREFIX") or "LIMITS",
            wrap_exceptions=True,
            socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
            socket_timeout=REDIS_TIMEOUT_SECONDS,
        )
        return FixedWindowRateLimiter(storage)

    @functools.cached_property
    def local(self) -> FixedWindowRateLimiter:
        """This process's own count: without Redis, and while Redis is unreachable."""
        # MemoryStorage starts a short-lived expiry thread when none is running, so a check far from the
        # last one costs a thread start (a few tenths of a millisecond): accepted beside the vote's own
        # DynamoDB write, and this path is only taken without Redis; with Redis a check is 5-6x cheaper
        # than the former add/exists/incr on Django's cache.
        return FixedWindowRateLimiter(ThreadSafeMemoryStorage())


class ThreadSafeMemoryStorage(MemoryStorage):
    """`limits`' in-process storage with its increments taking turns.

    `MemoryStorage.incr` (limits 5.8) replaces and starts its expiry timer without a lock: two request
    threads that both find it stopped can start the same timer twice, and the second vote's check raises
    RuntimeError ("threads can only be started once"), a 500 (seen once in 200 concurrent votes).
    """

    def __init__(self) -> None:
        super().__init__()
        self._incr_lock = threading.Lock()

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        """Add `amount` to the count under `key`, one thread at a time."""
        with self._incr_lock:
            return super().incr(key, expiry, amount)


def limiter_is_local() -> bool:
    """Whether the limiter every worker shares is this process's own (no Redis): a check does no I/O."""
    limiters = runtime().vote_limiter
    return limiters.shared is limiters.local


def shared_limiter() -> FixedWindowRateLimiter:
    """The limiter every worker shares (this process's own without Redis)."""
    return runtime().vote_limiter.shared


def local_limiter() -> FixedWindowRateLimiter:
    """This process's own limiter."""
    return runtime().vote_limiter.local
