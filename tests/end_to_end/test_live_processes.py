"""Two daphne workers sharing DynamoDB Local and the real Redis: a write on one reaches the other."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from counters import services
from tests.support.live import receive_until, site_socket
from tests.support.processes import SiteProcess
from tests.support.site import redis_site_env, two_workers

WRITES = 40


@pytest.mark.processes
def test_a_write_through_worker_a_reaches_a_client_of_worker_b(
    demo_store, dynamodb_local, tmp_path, redis_prefix
):
    env = redis_site_env(demo_store, dynamodb_local, tmp_path, redis_prefix)
    with (
        two_workers(env, tmp_path) as (worker_a, worker_b),
        site_socket(worker_b.url) as socket_b,
        site_socket(worker_a.url) as socket_a,
    ):
        snapshot = json.loads(socket_b.recv(timeout=10))
        assert snapshot["type"] == "snapshot"
        assert {c["name"]: c["value"] for c in snapshot["counters"]}["welcome"] == 0
        assert json.loads(socket_a.recv(timeout=10))["type"] == "snapshot"

        def view(_: int) -> int:
            response = requests.get(f"{worker_a.url}/pages/welcome/", timeout=10)
            response.raise_for_status()
            return response.status_code

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(view, range(WRITES)))

        final = demo_store.get("welcome")
        # Views that met in flight may share a write (group commit): the version counts writes.
        assert final.value == WRITES and 0 < final.version <= WRITES
        for socket in (socket_b, socket_a):
            frames = receive_until(socket, lambda known: known.get("welcome", (0, 0))[1] >= final.version)
            assert frames[-1]["type"] == "update"
            assert {c["name"]: c["value"] for c in frames[-1]["counters"]}["welcome"] == WRITES
        assert "Traceback" not in worker_a.log_text() + worker_b.log_text()


@pytest.mark.processes
def test_a_write_outside_any_server_reaches_the_workers_through_redis(
    demo_store, dynamodb_local, tmp_path, redis_prefix, redis_channel_layer
):
    # Like a management command: no event loop runs here, so publish sends straight to Redis.
    env = redis_site_env(demo_store, dynamodb_local, tmp_path, redis_prefix)
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as worker, site_socket(worker.url) as socket:
        assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
        services.view_record(slug="docs")
        frames = receive_until(socket, lambda known: "docs" in known)
    assert frames[-1] == {"type": "update", "counters": [{"name": "docs", "value": 1, "version": 1}]}
