"""Where each worker's open sockets per page are kept: Redis shared by every worker, or this process.

With a Redis channel layer (several workers) each worker writes its own counts to a hash of its own,
`<prefix>:presence:<worker>`, which expires COUNTERS_PRESENCE_TTL seconds after its last write; the
worker rewrites it every third of that (counters/live/presence.py). A worker that dies, even by SIGKILL,
stops being counted once its hash expires: no goodbye is needed. The set `<prefix>:presence:workers`
names the hashes to add up; one Lua script adds them up atomically and drops the names whose hash has
expired. The prefix is the channel layer's, so sites (and tests) sharing one Redis stay apart.

Without Redis the site is one process, and its own counts are the totals.
"""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod

import redis
from channels import DEFAULT_CHANNEL_LAYER
from django.conf import settings

Counts = dict[str, int]  # page -> open sockets

REDIS_LAYERS = ("channels_redis.core.RedisChannelLayer", "channels_redis.pubsub.RedisPubSubChannelLayer")
# A socket connects with these even if Redis hangs: a presence read waits at most this long.
REDIS_TIMEOUT_SECONDS = 1.0

logger = logging.getLogger(__name__)

# KEYS[1] the set of workers; ARGV[1] the prefix of their hashes; ARGV[2] one page (optional).
SUM_SCRIPT = """
local index, prefix, page = KEYS[1], ARGV[1], ARGV[2]
local totals, flat = {}, {}
for _, worker in ipairs(redis.call('SMEMBERS', index)) do
  local key = prefix .. worker
  if redis.call('EXISTS', key) == 0 then
    redis.call('SREM', index, worker)
  elseif page then
    totals[page] = (totals[page] or 0) + tonumber(redis.call('HGET', key, page) or 0)
  else
    local fields = redis.call('HGETALL', key)
    for i = 1, #fields, 2 do
      totals[fields[i]] = (totals[fields[i]] or 0) + tonumber(fields[i + 1])
    end
  end
end
for name, count in pairs(totals) do
  table.insert(flat, name)
  table.insert(flat, count)
end
return flat
"""


class PresenceStore(ABC):
    """Each worker's counts, and their sums over every worker still alive."""

    # Whether a worker's counts expire unless rewritten (then workers send heartbeats).
    expires = False

    @abstractmethod
    def publish(self, worker: str, counts: Counts, *, ttl: float) -> None:
        """Replace a worker's counts; they are dropped `ttl` seconds later unless published again."""

    @abstractmethod
    def totals(self, page: str | None = None) -> Counts:
        """Sums over every live worker (of one page only, if given); pages nobody views are left out."""

    @abstractmethod
    def forget(self, worker: str) -> None:
        """Drop a worker's counts at once (a clean shutdown)."""


class MemoryPresence(PresenceStore):
    """One process: the counts live in its memory and never expire."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._workers: dict[str, Counts] = {}

    def publish(self, worker: str, counts: Counts, *, ttl: float) -> None:
        """Keep a copy of the worker's counts."""
        with self._lock:
            self._workers[worker] = dict(counts)

    def totals(self, page: str | None = None) -> Counts:
        """Sum the kept counts."""
        sums: Counts = {}
        with self._lock:
            for counts in self._workers.values():
                for name, count in counts.items():
                    if count and page in (None, name):
                        sums[name] = sums.get(name, 0) + count
        return sums

    def forget(self, worker: str) -> None:
        """Drop the worker's counts."""
        with self._lock:
            self._workers.pop(worker, None)


class RedisPresence(PresenceStore):
    """Every worker's counts in Redis, each worker's hash expiring unless rewritten."""

    expires = True

    def __init__(self, client: redis.Redis, *, prefix: str) -> None:
        self.client = client
        self.index = f"{prefix}:presence:workers"
        self.hash_prefix = f"{prefix}:presence:w:"
        self._sum = client.register_script(SUM_SCRIPT)

    def publish(self, worker: str, counts: Counts, *, ttl: float) -> None:
        """Rewrite the worker's hash and its expiry in one transaction (MULTI/EXEC)."""
        key = self.hash_prefix + worker
        live = {name: count for name, count in counts.items() if count > 0}
        pipe = self.client.pipeline(transaction=True)
        pipe.delete(key)
        if live:
            pipe.hset(key, mapping=live)
            pipe.pexpire(key, int(ttl * 1000))
            pipe.sadd(self.index, worker)
            # The set outlives every hash it names by nothing: once no worker writes, it goes too.
            pipe.pexpire(self.index, int(ttl * 1000))
        else:
            pipe.srem(self.index, worker)
        pipe.execute()

    def totals(self, page: str | None = None) -> Counts:
        """One atomic script: sum the hashes named in the set, dropping expired names from it."""
        args = [self.hash_prefix] if page is None else [self.hash_prefix, page]
        flat = self._sum(keys=[self.index], args=args)
        return {name.decode(): int(count) for name, count in zip(flat[::2], flat[1::2], strict=True) if count}

    def close(self) -> None:
        """Let go of the connection pool."""
        self.client.close()

    def forget(self, worker: str) -> None:
        """Delete the worker's hash and its name."""
        pipe = self.client.pipeline(transaction=True)
        pipe.delete(self.hash_prefix + worker)
        pipe.srem(self.index, worker)
        pipe.execute()


def redis_client(host: object) -> redis.Redis | None:
    """A client for one channels_redis `hosts` entry (a URL, a dict with `address`, or (host, port))."""
    options = {"socket_timeout": REDIS_TIMEOUT_SECONDS, "socket_connect_timeout": REDIS_TIMEOUT_SECONDS}
    if isinstance(host, str):
        return redis.Redis.from_url(host, **options)
    if isinstance(host, dict) and isinstance(host.get("address"), str):
        extra = {key: value for key, value in host.items() if key != "address"}
        return redis.Redis.from_url(host["address"], **{**extra, **options})
    if isinstance(host, list | tuple) and len(host) == 2:
        return redis.Redis(host=host[0], port=int(host[1]), **options)
    return None


def build_presence_store(runtime: object = None) -> PresenceStore:
    """Redis when the channel layer is channels_redis (its first host and prefix); else this process."""
    layer = getattr(settings, "CHANNEL_LAYERS", {}).get(DEFAULT_CHANNEL_LAYER, {})
    if layer.get("BACKEND") not in REDIS_LAYERS:
        return MemoryPresence()
    config = layer.get("CONFIG", {})
    client = redis_client((config.get("hosts") or [("localhost", 6379)])[0])
    if client is None:
        logger.warning("Viewing-now counts only this process: the channel layer's Redis host is not a URL")
        return MemoryPresence()
    return RedisPresence(client, prefix=config.get("prefix", "asgi"))


def viewing_now(store: PresenceStore, page: str) -> int | None:
    """Browsers that have `page` open now, over every worker; None while the count cannot be read."""
    try:
        return store.totals(page).get(page, 0)
    except (redis.RedisError, OSError) as exc:
        logger.warning("Viewing-now count unavailable: %s", exc)
        return None
