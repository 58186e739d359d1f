"""Where viewing-now counts are kept: the machine's Redis (summed over workers, expiring) or the process."""

from __future__ import annotations

import pytest
import redis

from counters.store import get_presence_store
from counters.store.presence import MemoryPresence, RedisPresence, redis_client, viewing_now
from tests.support.site import REDIS_URL
from tests.support.timing import wait_until

TTL = 0.6


@pytest.fixture
def shared(redis_prefix) -> RedisPresence:
    """Viewing-now counts in the machine's Redis under this test's own prefix."""
    return RedisPresence(redis.Redis.from_url(REDIS_URL), prefix=redis_prefix)


def test_workers_add_up_per_page_and_a_rewrite_replaces_a_workers_counts(shared):
    shared.publish("a", {"welcome": 2, "docs": 1}, ttl=60)
    shared.publish("b", {"welcome": 1, "dashboard": 3}, ttl=60)
    assert shared.totals() == {"welcome": 3, "docs": 1, "dashboard": 3}
    assert shared.totals("welcome") == {"welcome": 3}
    assert shared.totals("nobody") == {}

    shared.publish("a", {"docs": 2, "welcome": 0}, ttl=60)
    assert shared.totals() == {"welcome": 1, "docs": 2, "dashboard": 3}


def test_a_worker_that_stops_writing_drops_out_when_its_counts_expire(shared):
    shared.publish("dead", {"welcome": 2}, ttl=TTL)
    shared.publish("alive", {"welcome": 1}, ttl=60)
    assert shared.totals() == {"welcome": 3}
    # Redis expires the dead worker's key on its own clock: wait for that, bounded.
    wait_until(
        lambda: shared.totals() == {"welcome": 1}, "the dead worker's counts to expire", timeout=TTL + 5
    )
    assert shared.client.smembers(shared.index) == {b"alive"}, "the expired name is dropped from the set"


def test_a_worker_without_sockets_and_a_forgotten_worker_count_nothing(shared):
    shared.publish("a", {"welcome": 1}, ttl=60)
    shared.publish("b", {"docs": 1}, ttl=60)
    shared.publish("a", {}, ttl=60)
    shared.forget("b")
    assert shared.totals() == {}
    assert not shared.client.exists(shared.index, shared.hash_prefix + "a", shared.hash_prefix + "b")


def test_the_memory_store_sums_the_process_alone():
    store = MemoryPresence()
    store.publish("me", {"welcome": 2, "docs": 0}, ttl=1)
    assert store.totals() == {"welcome": 2}
    assert store.totals("docs") == {}
    store.forget("me")
    assert store.totals() == {}


def test_the_channel_layer_chooses_the_store(settings, redis_channel_layer):
    store = get_presence_store()
    assert isinstance(store, RedisPresence)
    assert store.index == f"{redis_channel_layer}:presence:workers", "the layer's prefix keeps sites apart"
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    assert isinstance(get_presence_store(), MemoryPresence)


@pytest.mark.parametrize(
    "host", [REDIS_URL, {"address": REDIS_URL}, ("127.0.0.1", 6379), ["127.0.0.1", 6379]]
)
def test_every_channels_redis_host_form_is_understood(host):
    client = redis_client(host)
    try:
        assert client.ping()
    finally:
        client.close()


def test_an_unreachable_redis_makes_the_count_unknown_not_an_error(settings, caplog):
    port = 1  # nothing listens there
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [f"redis://127.0.0.1:{port}/0"]},
        }
    }
    assert viewing_now(get_presence_store(), "welcome") is None
    assert "Viewing-now count unavailable" in caplog.text
