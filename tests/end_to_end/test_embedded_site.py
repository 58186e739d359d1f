"""The embedded default end to end: the site starts DynamoDB Local itself and keeps counts across restarts."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from websockets.exceptions import ConnectionClosed

from counters.embedded import dynamodb_local as local
from counters.embedded.supervisor import WATCH_SECONDS
from counters.live.consumers import CLOSE_TRY_AGAIN
from tests.support.groups import RESTARTS_DYNAMODB
from tests.support.live import receive_until, site_socket
from tests.support.outside_writers import aws_cli_add
from tests.support.processes import SiteProcess, occupy_port
from tests.support.reliability import beacon, csrf_session, error_code
from tests.support.site import embedded_env, manage
from tests.support.timing import scaled, wait_until

CLIENTS = 16
GETS_PER_CLIENT = 100

pytestmark = [pytest.mark.processes, RESTARTS_DYNAMODB]


@pytest.fixture
def data_dir(tmp_path: Path):
    """A data dir of its own; its DynamoDB Local is stopped whatever happens."""
    directory = tmp_path / "var"
    yield directory
    local.stop(directory)


def page_count(site: SiteProcess, name: str) -> int:
    """A counter's value through the public API."""
    return requests.get(f"{site.url}/api/counters/{name}", timeout=10).json()["value"]


def test_concurrent_views_are_exact_and_survive_a_restart(data_dir, tmp_path):
    env = embedded_env(data_dir)
    site = SiteProcess(env=env, log_path=tmp_path / "site.log")
    site.migrate()
    # As the quick start does: counters_init starts DynamoDB Local, creates the table, seeds the demo.
    assert "ready with the demo pages and polls." in manage(env, "counters_init")
    with site:
        running = local.status(data_dir)
        assert running is not None, "the embedded DynamoDB Local should be running for the site"
        before = page_count(site, "welcome")

        def browse(_: int) -> list[int]:
            with requests.Session() as session:
                return [session.get(f"{site.url}/pages/welcome/", timeout=30).status_code for _ in range(100)]

        with ThreadPoolExecutor(CLIENTS) as pool:
            statuses = [code for codes in pool.map(browse, range(CLIENTS)) for code in codes]
        assert statuses.count(200) == CLIENTS * GETS_PER_CLIENT
        assert page_count(site, "welcome") == before + CLIENTS * GETS_PER_CLIENT
        # A management command run beside the server reuses the running store.
        assert f"pid {running.pid}" in manage(env, "counters_local", "status")
        assert "ready with the demo pages and polls." in manage(env, "counters_init")
        assert local.status(data_dir).pid == running.pid

    # Restart everything on the same data dir: the site, and DynamoDB Local itself.
    assert local.stop(data_dir)
    with SiteProcess(env=env, log_path=tmp_path / "site2.log", server="runserver") as again:
        assert page_count(again, "welcome") == before + CLIENTS * GETS_PER_CLIENT
        assert local.status(data_dir).pid != running.pid


def welcome_totals(frames: list[dict]) -> list[int]:
    """Every total of the welcome page the frames carried, in order."""
    return [c["value"] for frame in frames for c in frame.get("counters", []) if c["name"] == "welcome"]


def test_as_make_run_does_a_change_made_with_the_aws_cli_shows_live(data_dir, tmp_path):
    env = embedded_env(data_dir)
    env.pop("COUNTERS_STREAM_READER")  # the default, as `make run` leaves it
    site = SiteProcess(env=env, log_path=tmp_path / "site.log", server="runserver")
    site.migrate()
    manage(env, "counters_init")
    with site, site_socket(site.url) as socket:
        frames = [json.loads(socket.recv(timeout=10))]
        assert frames[0]["type"] == "snapshot"
        total = aws_cli_add(local.running(data_dir), "counters", "welcome", 5)
        receive_until(socket, lambda totals: total in totals, reading=welcome_totals, frames=frames)
    assert "has no stream" not in site.log_path.read_text()


def test_runserver_autoreloader_starts_one_store(data_dir, tmp_path):
    env = embedded_env(data_dir)
    site = SiteProcess(env=env, log_path=tmp_path / "site.log", server="runserver")
    site.command = lambda: [
        sys.executable,
        "manage.py",
        "runserver",
        f"127.0.0.1:{site.port}",
    ]  # with reloader
    site.migrate()
    manage(env, "counters_init")
    with site:
        requests.get(f"{site.url}/pages/docs/", timeout=10).raise_for_status()
        pids = subprocess.run(
            ["pgrep", "-f", f"dbPath {data_dir}"], capture_output=True, text=True
        ).stdout.split()
        assert len(pids) == 1, pids


def test_the_site_follows_the_store_an_operator_stops_and_starts(data_dir, tmp_path):
    env = embedded_env(data_dir)
    manage(env, "counters_init")
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site:
        session = csrf_session(site.url)
        before = beacon(session, site.url, "docs").json()["value"]
        old = local.status(data_dir)

        with site_socket(site.url) as socket:
            assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
            assert "stopped" in manage(env, "counters_local", "stop")
            # The supervisor's look that finds the store gone closes open dashboards (the sentinel that
            # it looked); it decides in that same look whether to start the store again.
            with pytest.raises(ConnectionClosed) as closed:  # heartbeats until then
                receive_until(socket, lambda _: False, timeout=scaled(10 * WATCH_SECONDS))
            assert closed.value.rcvd.code == CLOSE_TRY_AGAIN
        refused = beacon(session, site.url, "docs")  # a failed store call wakes the supervisor: a second look
        assert refused.status_code == 503
        assert error_code(refused) == "store_unavailable"
        assert local.running(data_dir) is None
        assert "starting it again" not in site.log_path.read_text(), "stopped on purpose, it stays stopped"

        # Started again while another program holds its old port: it answers on a new one.
        with occupy_port(int(old.endpoint_url.rsplit(":", 1)[1])):
            manage(env, "counters_local", "start")
        new = local.status(data_dir)
        assert new is not None and new.endpoint_url != old.endpoint_url
        answers = []
        wait_until(
            lambda: answers.append(beacon(session, site.url, "docs")) or answers[-1].status_code == 200,
            "the site to reach the new store",
            timeout=10,
            poll=0.2,
        )
        assert answers[-1].json()["value"] == before + 1, "the refused beacon counted nothing"
