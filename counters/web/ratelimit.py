"""Per-IP rate limit for votes, counted in Django's cache (Redis when REDIS_URL is set)."""

from __future__ import annotations

import logging
import time

from django.core.cache import caches
from django.http import HttpRequest
from redis.exceptions import RedisError

from counters import conf
from counters.exceptions import RateLimited

CACHE_ALIAS = "default"
# Each process's own memory: where the count goes while the shared cache (Redis) is unreachable.
FALLBACK_ALIAS = "local"

logger = logging.getLogger(__name__)


def client_ip(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or the entry our own proxies added to X-Forwarded-For."""
    proxies = conf.proxy_count()
    if proxies > 0:
        # Only the last `proxies` entries come from proxies we trust; earlier ones are the client's word.
        hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
        if len(hops) >= proxies:
            return hops[-proxies]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def check_vote_rate(request: HttpRequest, *, now: float | None = None) -> None:
    """Count one vote request from this IP in the current window; RateLimited once over the rate."""
    rate = conf.vote_rate()
    if rate.unlimited:
        return
    now = time.time() if now is None else now
    window = int(now // rate.seconds)
    key = f"counters:vote-rate:{client_ip(request)}:{window}"
    try:
        count = count_in(caches[CACHE_ALIAS], key, timeout=rate.seconds + 1)
    except (RedisError, OSError) as exc:
        # A Redis outage must not stop voting: limit per process until it is back.
        logger.warning("Vote rate limit counted per process, the shared cache is unreachable: %s", exc)
        count = count_in(caches[FALLBACK_ALIAS], key, timeout=rate.seconds + 1)
    if count > rate.count:
        retry_after = max(1, int((window + 1) * rate.seconds - now + 0.999))
        raise RateLimited(
            f"At most {rate.count} votes per {rate.seconds} s from one address; retry in {retry_after} s.",
            retry_after=retry_after,
        )


def count_in(cache, key: str, *, timeout: int) -> int:
    """Add one to `key` in `cache` and return the new count."""
    # add() then incr() is atomic in Redis and in the local-memory cache: no read-modify-write race.
    cache.add(key, 0, timeout=timeout)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout=timeout)
        return 1
