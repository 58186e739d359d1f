"""The same app under uvicorn and granian (measured against daphne in `python -m bench servers`)."""

from __future__ import annotations

import json

import pytest
import requests

from tests.support.live import receive_until, site_socket
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for


@pytest.mark.processes
@pytest.mark.parametrize("server", ["uvicorn", "granian"])
def test_pages_beacons_and_the_live_push_work_under_another_server(
    demo_store, dynamodb_local, tmp_path, server
):
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    with (
        SiteProcess(env=env, log_path=tmp_path / f"{server}.log", server=server) as site,
        site_socket(site.url, page="docs") as socket,
    ):
        assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
        session = requests.Session()
        page = session.get(f"{site.url}/pages/docs/", timeout=10)
        assert page.status_code == 200 and page.headers["Content-Security-Policy"]
        token = session.cookies["csrftoken"]
        beacon = session.post(f"{site.url}/api/views/docs", headers={"X-CSRFToken": token}, timeout=10)
        assert beacon.status_code == 200 and beacon.json()["value"] == 2
        refused = requests.post(f"{site.url}/api/views/docs", timeout=10)  # no CSRF token
        assert refused.status_code == 403 and refused.json()["error"] == "csrf_failed"
        frames = receive_until(socket, lambda known: known.get("docs", (0, 0))[0] == 2)
    assert frames[-1]["type"] == "update"
    assert demo_store.get("docs").value == 2
    assert "Traceback" not in site.log_text()
