"""Two daphne workers behind nginx (deploy/nginx.conf.template) with COUNTERS_PROXY_COUNT=1, as deployed."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.support.live import receive_until, site_socket
from tests.support.nginx import Nginx
from tests.support.processes import SiteProcess
from tests.support.site import redis_site_env, two_workers
from tests.support.voting import HttpVoter, SourceAddressAdapter, poll_tally

BEACONS = 30
PAGE_VIEWS = 30
VOTES_PER_HOUR = 3
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"


def served(worker: SiteProcess, pattern: str) -> int:
    """How many requests matching `pattern` (method and path) daphne's access log shows for a worker."""
    return len(re.findall(pattern, worker.log_text()))


@pytest.fixture
def front_door(demo_store, dynamodb_local, tmp_path, redis_prefix):
    """nginx on a free port balancing two workers that share DynamoDB Local and Redis."""
    env = redis_site_env(demo_store, dynamodb_local, tmp_path, redis_prefix)
    env.update(COUNTERS_PROXY_COUNT="1", COUNTERS_VOTE_RATE=f"{VOTES_PER_HOUR}/h")
    with two_workers(env, tmp_path) as workers, Nginx([f"127.0.0.1:{w.port}" for w in workers]) as nginx:
        yield nginx, workers
    assert "Traceback" not in workers[0].log_text() + workers[1].log_text()


@pytest.mark.processes
def test_views_through_nginx_spread_over_both_workers_count_exactly_and_reach_a_socket_live(
    front_door, demo_store
):
    nginx, workers = front_door
    with site_socket(nginx.url) as socket:  # upgraded through nginx to one of the workers
        assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
        [socket_worker] = [w for w in workers if served(w, r"WSCONNECT /ws/counters/")]
        other_worker = workers[1 - workers.index(socket_worker)]

        token = requests.get(f"{nginx.url}/pages/welcome/", timeout=10).cookies["csrftoken"]
        # What a browser's beacon sends: the CSRF cookie and header, and its Origin (nginx's address).
        beacon = {"Cookie": f"csrftoken={token}", "X-CSRFToken": token, "Origin": nginx.url}

        def beacon_post(_: int) -> int:
            return requests.post(f"{nginx.url}/api/views/welcome", headers=beacon, timeout=10).status_code

        def page_view(_: int) -> int:
            return requests.get(f"{nginx.url}/pages/welcome/", timeout=10).status_code

        with ThreadPoolExecutor(4) as pool:
            statuses = [*pool.map(beacon_post, range(BEACONS)), *pool.map(page_view, range(PAGE_VIEWS))]
        assert statuses == [200] * (BEACONS + PAGE_VIEWS)

        expected = 1 + BEACONS + PAGE_VIEWS  # the first page view set the CSRF cookie
        assert demo_store.get("welcome").value == expected
        api = requests.get(f"{nginx.url}/api/counters/welcome", timeout=10).json()
        assert api["value"] == expected
        # nginx spread the writes over both workers, each counted once.
        beacons = [served(w, r'"POST /api/views/welcome" 200') for w in workers]
        views = [served(w, r'"GET /pages/welcome/" 200') for w in workers]
        assert sum(beacons) == BEACONS and sum(views) == PAGE_VIEWS + 1
        assert min(beacons) > 0 and min(views) > 0, (beacons, views)
        print(f"\nbeacons per worker {beacons}, page views per worker {views}")

        # The socket's worker learns of the other worker's writes through Redis: its final total.
        assert served(other_worker, r'"POST /api/views/welcome" 200') > 0
        frames = receive_until(socket, lambda known: known.get("welcome", (0, 0))[0] >= expected)
        assert {c["name"]: c["value"] for c in frames[-1]["counters"]}["welcome"] == expected


@pytest.mark.processes
def test_the_vote_rate_limit_sees_each_clients_real_address_through_nginx(front_door, demo_store):
    nginx, _ = front_door
    # Two machines: their own loopback addresses; each voter has its own cookies.
    first = HttpVoter(nginx.url, source_address="127.0.0.2").visit()
    second = HttpVoter(nginx.url, source_address="127.0.0.3").visit()

    allowed = [first.vote("language", "rust").status_code for _ in range(VOTES_PER_HOUR)]
    assert allowed == [200] * VOTES_PER_HOUR
    assert first.vote("language", "go").status_code == 429
    # Naming another address does not escape the limit: nginx appends the real one, the app takes it.
    escape = first.vote("language", "go", headers={"X-Forwarded-For": "203.0.113.7"})
    assert escape.status_code == 429 and int(escape.headers["Retry-After"]) > 0

    # The other machine has its own allowance, even when it names the first one's address.
    borrowed = [
        second.vote("language", "python", headers={"X-Forwarded-For": "127.0.0.2"}).status_code
        for _ in range(VOTES_PER_HOUR)
    ]
    assert borrowed == [200] * VOTES_PER_HOUR
    assert second.vote("language", "python").status_code == 429
    tally = {option: count for option, count in poll_tally(demo_store, "language").items() if count}
    assert tally == {"rust": 1, "python": 1}


@pytest.mark.processes
def test_unique_visitors_are_told_apart_by_the_real_address_not_the_header(front_door):
    nginx, _ = front_door
    for address in ("127.0.0.2", "127.0.0.3"):
        browser = requests.Session()
        browser.mount("http://", SourceAddressAdapter(address))
        for spoofed in ("198.51.100.1", "198.51.100.2", "127.0.0.9"):
            headers = {"User-Agent": BROWSER, "X-Forwarded-For": spoofed}
            browser.get(f"{nginx.url}/pages/docs/", headers=headers, timeout=10).raise_for_status()
    docs = requests.get(f"{nginx.url}/api/counters/docs", timeout=10).json()
    assert (docs["value"], docs["visitors_today"]) == (6, 2)
