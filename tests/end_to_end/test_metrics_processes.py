"""Two real daphne workers sharing PROMETHEUS_MULTIPROC_DIR: one scrape counts exactly the load both took."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.support.live import site_socket
from tests.support.metrics import AUTHORIZATION, TOKEN, sample
from tests.support.site import redis_site_env, two_workers
from tests.support.voting import HttpVoter

BEACONS = 80  # N, split over both workers
VOTERS = 20  # M: each opens the dashboard once (a counted view) and votes once
POLL = "language"
# Django's CSRF check compares the cookie's secret with the header's; any 32 letters pass, and no
# page has to be fetched (and counted) for them.
CSRF = "metricsmetricsmetricsmetricsmetr"
BEACON_HEADERS = {"Cookie": f"csrftoken={CSRF}", "X-CSRFToken": CSRF}


def scrape(url: str) -> str:
    response = requests.get(f"{url}/metrics", headers={"Authorization": AUTHORIZATION}, timeout=10)
    assert response.status_code == 200, response.text[:300]
    return response.text


def beacon(url: str) -> int:
    return requests.post(f"{url}/api/views/welcome", headers=BEACON_HEADERS, timeout=30).status_code


def vote(url: str, option: str) -> bool:
    response = HttpVoter(url).visit().vote(POLL, option)
    assert response.status_code == 200, response.text[:300]
    return response.json()["counted"]


@pytest.mark.processes
def test_one_scrape_counts_the_views_and_votes_every_worker_took(
    demo_store, dynamodb_local, tmp_path, redis_prefix
):
    shared = tmp_path / "prometheus"  # not made here: each worker makes it if missing
    env = redis_site_env(demo_store, dynamodb_local, tmp_path, redis_prefix)
    env |= {"PROMETHEUS_MULTIPROC_DIR": str(shared), "COUNTERS_METRICS_TOKEN": TOKEN}
    options = [option.id for option in demo_store.get_poll(POLL).options]
    with two_workers(env, tmp_path) as (worker_a, worker_b):
        with site_socket(worker_b.url) as socket:
            assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
            urls = [worker_a.url, worker_b.url]
            with ThreadPoolExecutor(8) as pool:
                answers = list(pool.map(beacon, [urls[i % 2] for i in range(BEACONS)]))
                counted = list(pool.map(vote, [urls[i % 2] for i in range(VOTERS)], options * VOTERS))
            assert answers == [200] * BEACONS and all(counted)
            for url in urls:
                assert requests.get(f"{url}/healthz", timeout=10).json() == {"status": "ok"}
                assert requests.get(f"{url}/readyz", timeout=10).json() == {"status": "ready"}
            text = scrape(worker_a.url)
            assert sample(text, "counters_live_sockets") == 1  # open on worker B, seen from A
        store_views = demo_store.get("welcome").value + demo_store.get("dashboard").value
        assert store_views == BEACONS + VOTERS
        assert sample(text, "counters_views_counted_total") == BEACONS + VOTERS
        assert sample(text, "counters_votes_total", action="vote", result="counted") == VOTERS
        assert sample(text, "counters_write_batch_size_sum", kind="views") == BEACONS + VOTERS
        assert sample(text, "counters_store_request_seconds_count", operation="UpdateItem") >= 1
        assert sample(text, "counters_store_request_seconds_count", operation="TransactWriteItems") >= VOTERS
        errors = [line for line in text.splitlines() if line.startswith("counters_store_errors_total{")]
        assert sample(text, "counters_store_errors_total") == 0, errors
        beacons = {"view": "counters:api-view", "status": "200"}
        assert sample(text, "counters_http_responses_total", **beacons) == BEACONS
        assert sample(text, "counters_http_responses_total", status="500") == 0
        worker_b.stop()
        # A worker that exits leaves the open-socket sum; what it counted stays in the totals.
        after = scrape(worker_a.url)
        assert sample(after, "counters_live_sockets") == 0
        assert sample(after, "counters_views_counted_total") == BEACONS + VOTERS
    assert "Traceback" not in worker_a.log_text() + worker_b.log_text()
