"""Environment for a real site process sharing the test's table in the session's DynamoDB Local."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.test import override_settings

from counters.embedded.dynamodb_local import LocalDynamo
from counters.store import build_store
from counters.store.dynamodb.backend import DynamoCounterStore
from counters.store.dynamodb.clients import Connection, build_clients
from tests.support.processes import PROJECT_DIR, SiteProcess, free_port, site_environment

# The machine's own Redis (also on CI); tests keep to prefixes of their own.
REDIS_URL = "redis://127.0.0.1:6379/0"


@contextmanager
def fresh_store(dynamodb_local: LocalDynamo, data_dir: Path) -> Iterator[DynamoCounterStore]:
    """A store on a new table of DynamoDB Local, the settings naming it, closed when the block ends."""
    table = f"test-{uuid.uuid4().hex[:12]}"
    with override_settings(
        DYNAMODB_ENDPOINT_URL=dynamodb_local.endpoint_url,
        AWS_REGION=dynamodb_local.region,
        COUNTERS_TABLE=table,
        COUNTERS_DATA_DIR=data_dir,
    ):
        store = build_store()
        store.ensure_table()
        try:
            yield store
        finally:
            store.close()


def site_env_for(store, dynamodb_local: LocalDynamo, data_dir: Path, **overrides: str) -> dict[str, str]:
    """A site that reads and writes the same table as `store`."""
    return site_environment(
        DYNAMODB_ENDPOINT_URL=dynamodb_local.endpoint_url,
        AWS_ACCESS_KEY_ID=dynamodb_local.access_key_id,
        AWS_SECRET_ACCESS_KEY=dynamodb_local.secret_access_key,
        AWS_REGION=dynamodb_local.region,
        COUNTERS_TABLE=store.table,
        COUNTERS_DATA_DIR=str(data_dir),
        **overrides,
    )


def unreachable_store_env(data_dir: Path, **overrides: str) -> dict[str, str]:
    """A site whose DynamoDB endpoint is a free port where nothing has ever answered (a typo in the URL)."""
    return site_environment(
        DYNAMODB_ENDPOINT_URL=f"http://127.0.0.1:{free_port()}",
        AWS_ACCESS_KEY_ID="key",
        AWS_SECRET_ACCESS_KEY="secret",
        AWS_REGION="us-east-1",
        COUNTERS_DATA_DIR=str(data_dir),
        **overrides,
    )


def embedded_env(data_dir: Path, **overrides: str) -> dict[str, str]:
    """A site environment with no DynamoDB endpoint, so the site runs DynamoDB Local itself."""
    env = site_environment(COUNTERS_DATA_DIR=str(data_dir), **overrides)
    env.pop("DYNAMODB_ENDPOINT_URL", None)
    env.pop("AWS_ACCESS_KEY_ID", None)
    env.pop("AWS_SECRET_ACCESS_KEY", None)
    return env


def manage(env: dict[str, str], *args: str) -> str:
    """Run a management command beside the site and return its output."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


def store_on(local: LocalDynamo) -> DynamoCounterStore:
    """A store on the `counters` table of one DynamoDB Local instance (the embedded site's)."""
    clients = build_clients(
        Connection(local.endpoint_url, local.region, local.access_key_id, local.secret_access_key)
    )
    return DynamoCounterStore(client=clients.single_shot, retrying_client=clients.retrying, table="counters")


def redis_site_env(store, dynamodb_local: LocalDynamo, data_dir: Path, prefix: str) -> dict[str, str]:
    """A site of several workers sharing the machine's Redis under the test's own prefix."""
    return site_env_for(store, dynamodb_local, data_dir, REDIS_URL=REDIS_URL, COUNTERS_REDIS_PREFIX=prefix)


@contextmanager
def two_workers(env: dict[str, str], log_dir: Path) -> Iterator[tuple[SiteProcess, SiteProcess]]:
    """Two daphne workers of one site (logs a.log and b.log), stopped afterwards."""
    with (
        SiteProcess(env=env, log_path=log_dir / "a.log") as worker_a,
        SiteProcess(env=env, log_path=log_dir / "b.log") as worker_b,
    ):
        yield worker_a, worker_b
