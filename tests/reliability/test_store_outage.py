"""DynamoDB Local killed under load, then restarted: 503s meanwhile, pages say so, nothing lost or doubled."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest
import requests
from django.conf import settings

from counters.demo import seed_demo
from counters.embedded import dynamodb_local as dynamo_local
from counters.store.dynamodb.backend import DynamoCounterStore
from counters.store.dynamodb.clients import Connection, build_clients
from tests.support.faultproxy import FaultProxy
from tests.support.processes import SiteProcess
from tests.support.reliability import Outcomes, beacon, csrf_session, error_code
from tests.support.site import site_env_for

pytestmark = pytest.mark.processes
WRITERS = 4
DEADLINE = 40  # seconds a phase may take before the test gives up on it


def store_on(local: dynamo_local.LocalDynamo) -> DynamoCounterStore:
    """A store on the `counters` table of one DynamoDB Local instance."""
    clients = build_clients(
        Connection(local.endpoint_url, local.region, local.access_key_id, local.secret_access_key)
    )
    return DynamoCounterStore(client=clients.single_shot, retrying_client=clients.retrying, table="counters")


class Load:
    """Writers posting view beacons in a loop, classifying every answer."""

    def __init__(self, url: str, slug: str) -> None:
        self.url, self.slug = url, slug
        self.outcomes = Outcomes()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.sessions = [csrf_session(url) for _ in range(WRITERS)]
        self.threads = [threading.Thread(target=self.write, args=(s,), daemon=True) for s in self.sessions]

    def write(self, session: requests.Session) -> None:
        while not self.stopping.is_set():
            response = beacon(session, self.url, self.slug)
            with self.lock:
                self.outcomes.add(response)

    def acknowledged(self) -> int:
        with self.lock:
            return self.outcomes.acknowledged

    def failed(self) -> int:
        with self.lock:
            return self.outcomes.refused + self.outcomes.unknown

    def wait_for(self, condition, what: str) -> None:
        deadline = time.monotonic() + DEADLINE
        while not condition():
            assert time.monotonic() < deadline, f"gave up waiting for {what}: {self.outcomes}"
            time.sleep(0.05)

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=DEADLINE)


@pytest.fixture
def data_dir(tmp_path) -> Iterator:
    """A data dir of its own, whose persistent DynamoDB Local is stopped after the test."""
    yield tmp_path / "data"
    dynamo_local.stop(tmp_path / "data")


def kill(local: dynamo_local.LocalDynamo) -> None:
    """SIGKILL DynamoDB Local: no clean shutdown, like a crash."""
    os.kill(local.pid, signal.SIGKILL)


def test_store_killed_under_load_recovers_with_every_acknowledged_write(data_dir, tmp_path):
    first = dynamo_local.ensure_running(data_dir, base_dir=settings.BASE_DIR)
    store = store_on(first)
    store.ensure_table()
    seed_demo(store)
    before = store.get("docs").value
    with FaultProxy.for_endpoint(first.endpoint_url) as proxy:
        env = site_env_for(store, first, tmp_path / "site", COUNTERS_DYNAMODB_READ_TIMEOUT="1")
        env["DYNAMODB_ENDPOINT_URL"] = proxy.endpoint_url
        with SiteProcess(env=env, log_path=tmp_path / "site.log") as site, Load(site.url, "docs") as load:
            load.wait_for(lambda: load.acknowledged() >= 20, "writes before the crash")

            kill(first)
            proxy.pause()  # the proxy's port stands for the store's: closed, as a dead process's is
            load.wait_for(lambda: load.failed() >= 10, "writes failing during the outage")
            page = requests.get(f"{site.url}/pages/welcome/", timeout=30)
            dashboard = requests.get(f"{site.url}/", timeout=30)
            write = beacon(load.sessions[0], site.url, "docs")
            assert page.status_code == 200
            assert "View count unavailable" in page.text
            assert dashboard.status_code == 200
            assert "Counts are unavailable right now" in dashboard.text
            assert write.status_code == 503
            assert error_code(write) == "store_unavailable"
            assert int(write.headers["Retry-After"]) > 0

            second = dynamo_local.ensure_running(data_dir, base_dir=settings.BASE_DIR)
            proxy.upstream = ("127.0.0.1", int(second.endpoint_url.rsplit(":", 1)[1]))
            proxy.resume()
            recovered_from = load.acknowledged()
            load.wait_for(lambda: load.acknowledged() >= recovered_from + 20, "writes after the restart")
        assert not load.outcomes.other, f"only 200 or a JSON 503 is allowed: {load.outcomes.other}"

    gained = store_on(second).get("docs").value - before
    outcomes = load.outcomes
    assert outcomes.acknowledged <= gained, f"acknowledged writes were lost: {outcomes}, gained {gained}"
    # A write answered `outcome_unknown` may have counted (once); every other one did not.
    assert gained <= outcomes.acknowledged + outcomes.unknown, f"counted twice: {outcomes}, gained {gained}"
