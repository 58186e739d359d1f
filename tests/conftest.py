"""Shared fixtures: one in-memory DynamoDB Local per test session (per worker under xdist), a fresh table
per test, a memory store."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from django.conf import settings as django_settings
from hypothesis import settings as hypothesis_settings

from counters.embedded.dynamodb_local import InMemoryDynamo, LocalDynamo
from counters.runtime import Runtime, use_runtime
from counters.store import CounterStore, get_store
from tests.support.groups import keep_browser_modules_together, mark_alone, name_groups_in_ids
from tests.support.site import REDIS_URL
from tests.support.tiers import mark_dynamodb, require_the_mark

# The suite's fuzzing is reproducible: the same examples on every run, none kept between runs.
# `COUNTERS_FUZZ=explore` draws new examples each run (and keeps failures in .hypothesis/ to replay).
hypothesis_settings.register_profile("suite", derandomize=True, database=None, print_blob=True)
hypothesis_settings.register_profile("explore", derandomize=False, print_blob=True)
hypothesis_settings.load_profile("explore" if os.environ.get("COUNTERS_FUZZ") == "explore" else "suite")

# `make test` starts one DynamoDB Local per worker, all at once on two cores: more than the launcher's 30 s.
DYNAMODB_READY_TIMEOUT = 120


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> Iterator[None]:
    """Tests that run alone or need DynamoDB Local marked so; groups for `--dist loadgroup`: each browser
    module's own, then every group named in its tests' ids."""
    mark_alone(items)
    mark_dynamodb(items)
    keep_browser_modules_together(items)
    yield
    name_groups_in_ids(config, items)


@pytest.fixture(autouse=True)
def process_runtime() -> Iterator[Runtime]:
    """Each test runs with a runtime of its own (store, caches, live objects), closed after it."""
    with use_runtime(Runtime()) as runtime:
        yield runtime


@pytest.fixture(scope="session")
def dynamodb_local() -> Iterator[LocalDynamo]:
    """Start Amazon DynamoDB Local in memory on a free port for the session (each xdist worker's own)."""
    with InMemoryDynamo(base_dir=django_settings.BASE_DIR, ready_timeout=DYNAMODB_READY_TIMEOUT) as local:
        saved = {key: os.environ.get(key) for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
        # The store finds credentials through boto3's usual chain, as it would on AWS.
        os.environ["AWS_ACCESS_KEY_ID"] = local.access_key_id
        os.environ["AWS_SECRET_ACCESS_KEY"] = local.secret_access_key
        try:
            yield local
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


@pytest.fixture
def store_settings(dynamodb_local: LocalDynamo, settings, tmp_path, request):
    """Point the app at the session's DynamoDB Local and a table of its own."""
    require_the_mark(request)
    settings.DYNAMODB_ENDPOINT_URL = dynamodb_local.endpoint_url
    settings.AWS_REGION = dynamodb_local.region
    settings.COUNTERS_TABLE = f"test-{uuid.uuid4().hex[:12]}"
    settings.COUNTERS_DATA_DIR = tmp_path
    # Changing them back drops the store: this test's tallied views are written to its own table then.
    return settings


def fresh_store(*, demo: bool = False) -> CounterStore:
    """The runtime's store as the settings name it, its table created (and the demo seeded)."""
    from counters.demo import seed_demo

    store = get_store()
    store.ensure_table()
    if demo:
        seed_demo(store)
    return store


@pytest.fixture
def store(store_settings) -> CounterStore:
    """The app's store on a fresh, empty table in DynamoDB Local."""
    return fresh_store()


@pytest.fixture
def demo_store(store) -> CounterStore:
    """A fresh table holding the demo pages and polls."""
    return fresh_store(demo=True)


@pytest.fixture
def memory_store(settings) -> CounterStore:
    """The app's store on the in-process memory backend: fresh and empty, no Java started."""
    settings.COUNTERS_STORE_BACKEND = "counters.store.memory.MemoryCounterStore"
    return fresh_store()


@pytest.fixture
def memory_demo_store(memory_store) -> CounterStore:
    """A memory store holding the demo pages and polls."""
    return fresh_store(demo=True)


@pytest.fixture
def redis_prefix():
    """A channels_redis prefix of this test's own on the machine's Redis; its keys are removed afterwards."""
    import redis

    prefix = f"test-{uuid.uuid4().hex[:12]}"
    yield prefix
    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(f"{prefix}*"))
    if keys:
        client.delete(*keys)
    client.close()


@pytest.fixture
def redis_channel_layer(redis_prefix, settings) -> str:
    """This process publishes through the machine's Redis under the test's own prefix (returned)."""
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 10}], "prefix": redis_prefix},
        }
    }
    return redis_prefix
