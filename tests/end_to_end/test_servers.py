"""The same ASGI application under daphne, uvicorn and granian: counting, its checks, and live pushes."""

from __future__ import annotations

import json

import pytest
import requests

from tests.support.live import receive_until, site_socket
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for

SERVERS = ["daphne", "uvicorn", "granian"]


@pytest.mark.processes
@pytest.mark.parametrize("server", SERVERS)
def test_a_beacon_is_checked_counted_and_pushed_under_each_server(
    server, demo_store, dynamodb_local, tmp_path
):
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    site = SiteProcess(env=env, log_path=tmp_path / f"{server}.log", server=server, quiet=True)
    site.migrate()
    with site, site_socket(site.url) as socket, requests.Session() as browser:
        assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
        page = browser.get(f"{site.url}/pages/welcome/", timeout=10)
        # A page without a poll sets the CSRF cookie only, never the voter cookie.
        assert page.status_code == 200 and set(page.cookies.keys()) == {"csrftoken"}

        refused = browser.post(f"{site.url}/api/views/welcome", timeout=10)
        assert refused.status_code == 403 and refused.json()["error"] == "csrf_failed"

        token = browser.cookies["csrftoken"]
        beacon = browser.post(f"{site.url}/api/views/welcome", headers={"X-CSRFToken": token}, timeout=10)
        assert beacon.status_code == 200 and beacon.json()["value"] == 2
        # The beacon keeps the site's security headers and mints no cookie of its own.
        assert beacon.headers["X-Frame-Options"] == "DENY"
        assert beacon.headers["X-Content-Type-Options"] == "nosniff"
        assert "frame-ancestors 'none'" in beacon.headers["Content-Security-Policy"]
        assert "Set-Cookie" not in beacon.headers

        unknown = browser.post(f"{site.url}/api/views/nope", headers={"X-CSRFToken": token}, timeout=10)
        assert unknown.status_code == 404 and set(unknown.json()) == {"error", "detail"}

        frames = receive_until(socket, lambda known: known.get("welcome", (0, 0))[0] >= 2)
        assert {c["name"]: c["value"] for c in frames[-1]["counters"]}["welcome"] == 2
    assert demo_store.get("welcome").value == 2
    assert "Traceback" not in site.log_text()
