"""Workers SIGKILLed under load behind nginx: none counts a view twice, none acknowledged is lost."""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pytest
import requests

from tests.support.groups import LOADS_THE_MACHINE
from tests.support.nginx import Nginx
from tests.support.processes import SiteProcess
from tests.support.site import redis_site_env
from tests.support.timing import wait_until

PAGE = "welcome"  # counted by GET /pages/welcome/
BEACON_PAGE = "docs"  # counted by POST /api/views/docs
CONCURRENCY = 12
MAX_REQUESTS = 5000  # the load stops at this count or when the kills are done, whichever comes first
KILLS = 2
BACK_WITHIN = 3.0  # seconds after a restarted worker answers until nginx hands it requests again
# A request the load sends, in daphne's or uvicorn's access log (the readiness probe reads /api/counters).
LOAD_LINE = re.compile(rf'"(?:GET /pages/{PAGE}/|POST /api/views/{BEACON_PAGE})(?: HTTP/1\.1)?" ')


@dataclass
class Tally:
    """Requests of one kind: how many were sent, and each answer's status (0: no answer)."""

    sent: int = 0
    statuses: Counter[int] = field(default_factory=Counter)

    @property
    def acknowledged(self) -> int:
        """Answers that said the view counted."""
        return self.statuses[200]


class Load:
    """Threads alternating counted page GETs and beacon POSTs through nginx until stopped or capped."""

    def __init__(self, url: str, beacon_headers: dict[str, str]) -> None:
        self.url = url
        self.beacon_headers = beacon_headers
        self.pages, self.beacons = Tally(), Tally()
        self.stop = threading.Event()
        self._lock = threading.Lock()

    @property
    def sent(self) -> int:
        """Requests sent so far, both kinds."""
        return self.pages.sent + self.beacons.sent

    def _next(self) -> Tally | None:
        """Count the next request as sent and say its kind; None once the load is over."""
        with self._lock:
            if self.stop.is_set() or self.sent >= MAX_REQUESTS:
                return None
            tally = self.pages if self.pages.sent <= self.beacons.sent else self.beacons
            tally.sent += 1
            return tally

    def run(self) -> None:
        """One client: a keep-alive connection to nginx, as a browser holds."""
        with requests.Session() as session:
            while (tally := self._next()) is not None:
                try:
                    if tally is self.pages:
                        response = session.get(f"{self.url}/pages/{PAGE}/", timeout=10)
                    else:
                        url = f"{self.url}/api/views/{BEACON_PAGE}"
                        response = session.post(url, headers=self.beacon_headers, timeout=10)
                    status = response.status_code
                except requests.RequestException:
                    status = 0
                with self._lock:
                    tally.statuses[status] += 1

    def wait_for(self, more: int, timeout: float = 30) -> None:
        """Wait until `more` further requests have been sent."""
        target, deadline = self.sent + more, time.monotonic() + timeout
        while self.sent < target:
            assert time.monotonic() < deadline, f"the load stalled at {self.sent} requests"
            time.sleep(0.02)


def seconds_until_served(worker: SiteProcess, log_offset: int, timeout: float = 10) -> float:
    """Seconds until the worker's log shows a request of the load after `log_offset`."""
    started = time.monotonic()
    while not LOAD_LINE.search(worker.log_text()[log_offset:]):
        assert time.monotonic() - started < timeout, "nginx never sent the restarted worker a request"
        time.sleep(0.05)
    return time.monotonic() - started


def kill_and_restart(load: Load, worker: SiteProcess) -> float:
    """SIGKILL a worker under load, let the other carry it, start it again; seconds until it serves."""
    load.wait_for(150)
    worker.process.kill()
    worker.process.wait()
    load.wait_for(150)
    offset = len(worker.log_text())
    worker.start()
    return seconds_until_served(worker, offset)


@pytest.fixture
def front_door(demo_store, dynamodb_local, tmp_path, redis_prefix):
    """nginx from the template balancing a daphne and a uvicorn worker sharing DynamoDB Local and Redis."""
    env = redis_site_env(demo_store, dynamodb_local, tmp_path, redis_prefix)
    env.update(COUNTERS_PROXY_COUNT="1")
    # One of each server, so one run kills both: how a server dies is not nginx's to know.
    first = SiteProcess(env=env, log_path=tmp_path / "daphne.log", server="daphne")
    second = SiteProcess(env=env, log_path=tmp_path / "uvicorn.log", server="uvicorn")
    with first, second, Nginx([f"127.0.0.1:{w.port}" for w in (first, second)]) as nginx:
        yield nginx, (first, second)


@pytest.mark.processes
@LOADS_THE_MACHINE
def test_workers_killed_under_load_count_no_request_twice_and_lose_none_acknowledged(front_door, demo_store):
    nginx, workers = front_door
    token = requests.get(f"{nginx.url}/pages/{PAGE}/", timeout=10).cookies["csrftoken"]
    beacon_headers = {"Cookie": f"csrftoken={token}", "X-CSRFToken": token, "Origin": nginx.url}
    before = {name: demo_store.get(name).value for name in (PAGE, BEACON_PAGE)}

    load = Load(nginx.url, beacon_headers)
    with ThreadPoolExecutor(CONCURRENCY) as pool:
        clients = [pool.submit(load.run) for _ in range(CONCURRENCY)]
        try:
            back_after = [kill_and_restart(load, workers[kill % 2]) for kill in range(KILLS)]
            load.wait_for(150)
        finally:
            load.stop.set()
        for client in clients:
            client.result()
    # A write a killed worker had already sent may still land in DynamoDB Local: wait (with a deadline)
    # until every acknowledged one has; any later landing keeps the count within what was sent.
    wait_until(
        lambda: all(
            demo_store.get(name).value - before[name] >= tally.acknowledged
            for name, tally in ((PAGE, load.pages), (BEACON_PAGE, load.beacons))
        ),
        "every acknowledged view counted",
        timeout=10,
    )

    for name, tally in ((PAGE, load.pages), (BEACON_PAGE, load.beacons)):
        counted = demo_store.get(name).value - before[name]
        print(f"\n{name}: sent {tally.sent}, statuses {dict(tally.statuses)}, counted {counted}")
        # Jepsen's counter rule: every acknowledged view counted, none counted twice.
        assert tally.acknowledged <= counted <= tally.sent, (name, tally, counted)
        # Only the requests a dying worker held go unanswered (502); nginx itself answers every one.
        assert set(tally.statuses) <= {200, 502}, tally.statuses
        assert tally.statuses[502] <= CONCURRENCY * KILLS, tally.statuses
    print(f"restarted workers served again after {[round(s, 2) for s in back_after]} s")
    assert max(back_after) < BACK_WITHIN, back_after
