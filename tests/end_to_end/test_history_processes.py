"""The history batcher in a real daphne process: batched while running, written out on a clean stop."""

from __future__ import annotations

import time

import pytest
import requests

from counters.domain.buckets import WINDOWS
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for


def history_total(store, name: str) -> int:
    """Views of the last hour in the table, read like the API does."""
    window = WINDOWS["1h"]
    starts = window.starts(time.time())
    key = window.resolution.key
    return sum(store.read_buckets(name, first=key(starts[0]), last=key(starts[-1])).values())


@pytest.mark.processes
def test_history_waits_for_the_batch_and_is_written_at_shutdown(demo_store, dynamodb_local, tmp_path):
    # A flush interval of an hour: only the exit hook can have written what the table holds after stop.
    env = site_env_for(demo_store, dynamodb_local, tmp_path, COUNTERS_HISTORY_FLUSH_SECONDS="3600")
    site = SiteProcess(env=env, log_path=tmp_path / "site.log").start()
    try:
        for _ in range(3):
            assert requests.get(f"{site.url}/pages/docs/", timeout=10).status_code == 200
        assert demo_store.get("docs").value == 3, "totals are written before the response"
        assert history_total(demo_store, "docs") == 0, "history is batched, not written per view"
    finally:
        site.stop()
    assert site.process.returncode is not None
    assert history_total(demo_store, "docs") == 3, site.log_text()[-2000:]
