"""The dashboard websocket of a real daphne site: foreign origins are refused, the site's own served."""

from __future__ import annotations

import json

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.support.live import WS_PATH, site_socket
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for

FOREIGN_ORIGINS = ["http://evil.example", "https://127.0.0.1.evil.example", "null"]


@pytest.fixture
def site(demo_store, dynamodb_local, tmp_path):
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as running:
        yield running


@pytest.mark.processes
def test_foreign_origins_are_refused_and_the_sites_own_gets_the_snapshot(site, demo_store):
    ws_url = site.url.replace("http://", "ws://") + WS_PATH
    for origin in FOREIGN_ORIGINS:
        with pytest.raises(InvalidStatus) as refused:
            connect(ws_url, origin=origin, open_timeout=10).close()
        assert refused.value.response.status_code == 403, origin

    with site_socket(site.url) as socket:
        snapshot = json.loads(socket.recv(timeout=10))
    assert snapshot["type"] == "snapshot"
    expected = {state.name: state.value for state in demo_store.list_counters()}
    assert {counter["name"]: counter["value"] for counter in snapshot["counters"]} == expected
    assert "Traceback" not in site.log_text()
