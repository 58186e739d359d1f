"""Whether this worker can serve: the store and every Redis it uses answer, each within a deadline.

The parts are asked at once, each on a thread of its own, and the caller waits at most `timeout` in
all: a hung part is reported as not answering while its call runs out on its own (the store's and
Redis' clients have bounded timeouts), so a load balancer's probe is never held up by it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable

from channels import DEFAULT_CHANNEL_LAYER
from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS

from counters.domain.names import DASHBOARD_COUNTER
from counters.exceptions import StoreMisconfigured, UnknownCounter
from counters.store import get_store
from counters.store.presence import REDIS_LAYERS, redis_client

REDIS_CACHE = "django.core.cache.backends.redis.RedisCache"
Probe = Callable[[], None]


def store_answers() -> None:
    """Read one counter; a missing counter still means the store answered."""
    with contextlib.suppress(UnknownCounter):
        get_store().get(DASHBOARD_COUNTER)


def redis_hosts() -> list[object]:
    """Every Redis this site uses: the channel layer's hosts and a Redis cache's locations."""
    hosts: list[object] = []
    layer = getattr(settings, "CHANNEL_LAYERS", {}).get(DEFAULT_CHANNEL_LAYER, {})
    if layer.get("BACKEND") in REDIS_LAYERS:
        hosts += layer.get("CONFIG", {}).get("hosts") or [("localhost", 6379)]
    cache = getattr(settings, "CACHES", {}).get(DEFAULT_CACHE_ALIAS, {})
    if cache.get("BACKEND") == REDIS_CACHE:
        location = cache.get("LOCATION", [])
        hosts += [location] if isinstance(location, str) else list(location)
    return hosts


def redis_answers(host: object) -> Probe:
    """A probe that PINGs one Redis host with the short timeouts of presence.py."""

    def probe() -> None:
        client = redis_client(host)
        if client is None:
            raise ValueError("this Redis host is neither a URL nor (host, port)")
        try:
            client.ping()
        finally:
            client.close()

    return probe


def readiness_probes() -> dict[str, Probe]:
    """The parts to check, by the name a failure reports (`redis`, or `redis 2` for a second host)."""
    probes: dict[str, Probe] = {"store": store_answers}
    distinct: list[object] = []  # hosts may be dicts, so no set
    for host in redis_hosts():
        if host not in distinct:
            distinct.append(host)
    for index, host in enumerate(distinct, start=1):
        probes["redis" if index == 1 else f"redis {index}"] = redis_answers(host)
    return probes


def unready_parts(probes: dict[str, Probe], *, timeout: float) -> dict[str, str]:
    """Run every probe at once; each part that failed or did not answer in `timeout`, with why."""
    outcomes: dict[str, str | None] = {}
    threads = [
        threading.Thread(target=_run, args=(name, probe, outcomes), daemon=True, name=f"readyz {name}")
        for name, probe in probes.items()
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    silent = f"no answer within {timeout:g} s"
    return {name: why for name in probes if (why := outcomes.get(name, silent)) is not None}


def _run(name: str, probe: Probe, outcomes: dict[str, str | None]) -> None:
    """Run one probe; note None when it answered, else the failure's kind (never its message)."""
    try:
        probe()
    except StoreMisconfigured as exc:
        # Its sentence names the settings to fix and never an address or a key.
        outcomes[name] = f"misconfigured: {exc.detail}"
    except Exception as exc:
        # The class alone: a message may carry an address or a key, and /readyz is public.
        outcomes[name] = type(exc).__name__
    else:
        outcomes[name] = None
