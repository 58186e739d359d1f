"""Fixtures for fault tests: a real site whose store traffic passes through a fault proxy."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.faultproxy import FaultProxy
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for

# Short waits on the store keep each fault test bounded; the defaults are 1 s and 2 s.
FAST_TIMEOUTS = {"COUNTERS_DYNAMODB_CONNECT_TIMEOUT": "1", "COUNTERS_DYNAMODB_READ_TIMEOUT": "1"}


@pytest.fixture
def proxy(dynamodb_local) -> Iterator[FaultProxy]:
    """A fault proxy in front of the session's DynamoDB Local."""
    with FaultProxy.for_endpoint(dynamodb_local.endpoint_url) as running:
        yield running


@pytest.fixture
def proxied_site(demo_store, dynamodb_local, proxy, tmp_path) -> Iterator[SiteProcess]:
    """A real daphne site on the demo table, talking to DynamoDB only through `proxy`."""
    env = site_env_for(demo_store, dynamodb_local, tmp_path, **FAST_TIMEOUTS)
    env["DYNAMODB_ENDPOINT_URL"] = proxy.endpoint_url
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site:
        yield site
