"""Crashes under load, Jepsen style: SIGKILL the site or the embedded store while 8 clients write.

Views: acknowledged <= counted <= attempted. Votes, resent with their Idempotency-Key after the fault
(by cookieless clients too, whose every send comes without a voter cookie): exactly the acknowledged
ones, each key once, none lost, whether daphne or DynamoDB Local is killed (the embedded store
answers a transaction only after a read that waits for its COMMIT: docs/operations.md).
Nothing is restarted by hand but the killed daphne: the embedded DynamoDB Local is brought back by the
site's own supervisor.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from counters.embedded import dynamodb_local as local
from counters.live.fanout import CLOSE_TRY_AGAIN
from tests.support.crashes import BeaconLoad, VoteLoad
from tests.support.groups import RESTARTS_DYNAMODB
from tests.support.live import site_socket
from tests.support.processes import SiteProcess
from tests.support.site import embedded_env, manage, site_env_for, store_on
from tests.support.tiers import ON_DYNAMODB
from tests.support.voting import assert_poll_consistent, poll_tally

pytestmark = [pytest.mark.processes, RESTARTS_DYNAMODB]
SLUG = "docs"
POLL = "language"
BEFORE_FAULT = 40  # acknowledged writes before the fault ...
AFTER_FAULT = 40  # ... and after the site answers again
HEAL_SECONDS = 10  # the supervisor's promise, from the kill to the first acknowledged write
COOKIELESS = 3  # of the 8 voting clients, those that keep no voter cookie
# A voter resending through a long fault must not meet its per-voter limit: exactness is tested here.
NO_VOTE_LIMITS = {"COUNTERS_VOTE_RATE": "0", "COUNTERS_VOTER_RATE": "0"}
FAST_TIMEOUTS = {"COUNTERS_DYNAMODB_CONNECT_TIMEOUT": "1", "COUNTERS_DYNAMODB_READ_TIMEOUT": "1"}


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    """A data dir of its own, whose DynamoDB Local is stopped after the test."""
    directory = tmp_path / "var"
    yield directory
    local.stop(directory)


def embedded_site(data_dir: Path, log_path: Path) -> SiteProcess:
    """A daphne site running DynamoDB Local itself, with the demo data (as the quick start sets it up)."""
    env = embedded_env(data_dir, **NO_VOTE_LIMITS, **FAST_TIMEOUTS)
    manage(env, "counters_init")
    return SiteProcess(env=env, log_path=log_path)


def kill_daphne_and_start_again(site: SiteProcess) -> SiteProcess:
    """SIGKILL the site (no clean exit), then serve the same data on the same port."""
    site.process.kill()
    site.process.wait(timeout=10)
    return SiteProcess(env=site.env, log_path=site.log_path, port=site.port).start()


def kill_store(data_dir: Path) -> float:
    """SIGKILL the embedded DynamoDB Local, as the OOM killer would; return when it was killed."""
    running = local.running(data_dir)
    assert running is not None, "the site should have DynamoDB Local running"
    killed_at = time.monotonic()
    os.kill(running.pid, signal.SIGKILL)
    return killed_at


def assert_healed_in_time(timeline, killed_at: float) -> None:
    """A request sent after the kill was acknowledged within HEAL_SECONDS of it."""
    back = timeline.first_acknowledged_sent_after(killed_at)
    assert back is not None
    print(f"first acknowledged write sent {back - killed_at:.1f} s after the kill")
    assert back - killed_at < HEAL_SECONDS


def test_views_survive_daphne_killed_under_load(demo_store, dynamodb_local, tmp_path):
    before = demo_store.get(SLUG).value
    env = site_env_for(demo_store, dynamodb_local, tmp_path, **FAST_TIMEOUTS)
    site = SiteProcess(env=env, log_path=tmp_path / "site.log").start()
    try:
        with BeaconLoad(site.url, SLUG) as load:
            site = load.around(
                lambda: kill_daphne_and_start_again(site), before=BEFORE_FAULT, after=AFTER_FAULT
            )
    finally:
        site.stop()

    load.assert_counted_between(demo_store.get(SLUG).value - before)


def test_views_survive_the_embedded_store_killed_under_load(data_dir, tmp_path):
    with embedded_site(data_dir, tmp_path / "site.log") as site, site_socket(site.url) as socket:
        assert '"snapshot"' in socket.recv(timeout=10)
        before = store_on(local.running(data_dir)).get(SLUG).value
        with BeaconLoad(site.url, SLUG) as load:
            killed_at = load.around(lambda: kill_store(data_dir), before=BEFORE_FAULT, after=AFTER_FAULT)
        # The open dashboard was told the counts were not live any more.
        closed = drain_until_closed(socket)
        log = site.log_text()

    assert closed == CLOSE_TRY_AGAIN
    assert_healed_in_time(load.timeline, killed_at)
    print("\n".join(line for line in log.splitlines() if "DynamoDB Local" in line))
    assert "starting it again" in log and "is back at" in log
    running = local.running(data_dir)
    assert running is not None and running.pid != 0
    load.assert_counted_between(store_on(running).get(SLUG).value - before)


def drain_until_closed(socket) -> int:
    """Read update frames until the server closes the socket; return the close code."""
    deadline = time.monotonic() + HEAL_SECONDS
    while time.monotonic() < deadline:
        try:
            socket.recv(timeout=deadline - time.monotonic())
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else -1
        except TimeoutError:
            break
    raise AssertionError("the dashboard socket stayed open while the store was dead")


@pytest.mark.parametrize("fault", [pytest.param("daphne", marks=ON_DYNAMODB), "store"])
def test_votes_resent_with_their_keys_after_a_crash_count_exactly_once(fault, request, tmp_path):
    if fault == "daphne":
        store = request.getfixturevalue("demo_store")
        env = site_env_for(
            store,
            request.getfixturevalue("dynamodb_local"),
            tmp_path,
            **NO_VOTE_LIMITS,
            **FAST_TIMEOUTS,
        )
        site = SiteProcess(env=env, log_path=tmp_path / "site.log").start()
    else:
        data_dir = request.getfixturevalue("data_dir")
        site = embedded_site(data_dir, tmp_path / "site.log").start()
        store = store_on(local.running(data_dir))
    options = [option.id for option in store.get_poll(POLL).options]
    before = poll_tally(store, POLL)
    killed_at = None
    try:
        with VoteLoad(site.url, POLL, options, cookieless=COOKIELESS) as load:
            if fault == "daphne":
                site = load.around(
                    lambda: kill_daphne_and_start_again(site), before=BEFORE_FAULT, after=AFTER_FAULT
                )
            else:
                killed_at = load.around(lambda: kill_store(data_dir), before=BEFORE_FAULT, after=AFTER_FAULT)
    finally:
        site.stop()

    if fault == "store":
        assert_healed_in_time(load.timeline, killed_at)
        store = store_on(local.running(data_dir))
    load.assert_exact(before, poll_tally(store, POLL))
    assert_poll_consistent(store, POLL)
    load.assert_none_lost(store)
    load.assert_cookieless_counted_once(store)
