"""A bounded soak: mixed load on one daphne site, then exact totals and flat memory.

30 s by default, so `make test` stays short; `COUNTERS_SOAK_SECONDS=120` (or longer) for the full soak.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from counters import selectors, services
from counters.exceptions import VersionConflict
from tests.conftest import REDIS_URL
from tests.support.groups import LOADS_THE_MACHINE
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for
from tests.support.soak import SocketCrowd, rss_kib
from tests.support.voting import HttpVoter, assert_poll_consistent, poll_tally

SECONDS = float(os.environ.get("COUNTERS_SOAK_SECONDS", "30"))
SOCKETS = 200
VIEWERS = 3
VOTERS = 6
POLL = "language"
COUNTED = "welcome"  # viewed, never reset: its total must equal the 200 answers exactly
RESET = "docs"  # viewed and reset once a second: what the resets cleared plus what is left = its 200 answers
SETTLE = 30.0


@pytest.mark.processes
@LOADS_THE_MACHINE
@pytest.mark.timeout(SECONDS + SETTLE + 240)
def test_mixed_load_keeps_exact_totals_and_flat_memory(
    demo_store, dynamodb_local, tmp_path, redis_prefix, redis_channel_layer
):
    # Resets run here, outside the site: they reach its sockets through the same Redis.
    env = site_env_for(
        demo_store,
        dynamodb_local,
        tmp_path,
        REDIS_URL=REDIS_URL,
        COUNTERS_REDIS_PREFIX=redis_prefix,
        # Exactness under load is measured here, not the limits: neither the address nor the voter is held.
        COUNTERS_VOTE_RATE="0",
        COUNTERS_VOTER_RATE="0",
    )
    options = [option.id for option in demo_store.get_poll(POLL).options]
    statuses: Counter = Counter()
    counted_ok = Counter()
    resets = Counter()
    cleared = Counter()  # what the applied resets took away: the value at the version each applied at
    last_choice: dict[int, str | None] = {}  # each voter's choice as its last acknowledged answer gave it
    stop = threading.Event()

    tally = threading.Lock()  # Counter updates from several threads are not atomic

    def record(response: requests.Response, slug: str | None = None) -> None:
        with tally:
            statuses[response.status_code] += 1
            if slug is not None and response.status_code == 200:
                counted_ok[slug] += 1

    with (
        SiteProcess(env=env, log_path=tmp_path / "site.log") as site,
        SocketCrowd(site.url, SOCKETS) as crowd,
    ):

        def viewer(seed: int) -> None:
            browser = requests.Session()
            browser.get(f"{site.url}/", timeout=30).raise_for_status()
            headers = {"X-CSRFToken": browser.cookies["csrftoken"]}
            rng = random.Random(seed)
            while not stop.is_set():
                slug = COUNTED if rng.random() < 0.8 else RESET
                if rng.random() < 0.5:
                    response = browser.get(f"{site.url}/pages/{slug}/", timeout=30)
                else:
                    response = browser.post(f"{site.url}/api/views/{slug}", headers=headers, timeout=30)
                record(response, slug)

        def voter(seed: int) -> None:
            rng = random.Random(seed)
            person = HttpVoter(site.url).visit()
            while not stop.is_set():
                response = person.vote(POLL, rng.choice([*options, None]))
                record(response)
                if response.status_code == 200:
                    last_choice[seed] = response.json()["choice"]

        def resetter() -> None:
            while not stop.wait(1.0):
                seen = demo_store.get(RESET)
                try:
                    services.counter_reset(
                        name=RESET, expected_version=seen.version, actor="soak", reason="soak test"
                    )
                    resets["done"] += 1
                    # Applied only at the version read, so exactly the value read was cleared.
                    cleared[RESET] += seen.value
                except VersionConflict:
                    resets["stale"] += 1

        started = time.monotonic()
        with ThreadPoolExecutor(VIEWERS + VOTERS + 1) as pool:
            futures = [pool.submit(viewer, i) for i in range(VIEWERS)]
            futures += [pool.submit(voter, 100 + i) for i in range(VOTERS)]
            futures.append(pool.submit(resetter))
            time.sleep(min(15.0, SECONDS / 4))
            rss_start = rss_kib(site.process.pid)
            time.sleep(max(0.0, SECONDS - (time.monotonic() - started)))
            stop.set()
            for future in futures:
                future.result()
        elapsed = time.monotonic() - started
        rss_end = rss_kib(site.process.pid)

        final = {state.name: state.value for state in selectors.counter_list()}
        deadline = time.monotonic() + SETTLE
        while time.monotonic() < deadline and any(
            {name: crowd.totals(i).get(name) for name in final} != final for i in range(SOCKETS)
        ):
            time.sleep(0.5)
        behind = [i for i in range(SOCKETS) if {name: crowd.totals(i).get(name) for name in final} != final]
        dropped, frames = crowd.dropped, crowd.frames
        log = site.log_text()

    done = sum(statuses.values())
    print(
        f"\nsoak {elapsed:.0f}s: {done} requests ({done / elapsed:.0f}/s) {dict(statuses)}, "
        f"{SOCKETS} sockets got {frames} frames, resets {dict(resets)}, "
        f"RSS after warm-up {rss_start / 1024:.1f} MiB, at the end {rss_end / 1024:.1f} MiB"
    )
    assert set(statuses) == {200}, statuses
    assert final[COUNTED] == counted_ok[COUNTED]
    assert resets["done"] > 0
    assert cleared[RESET] + final[RESET] == counted_ok[RESET], (cleared, final[RESET], counted_ok[RESET])
    assert_poll_consistent(demo_store, POLL)
    held = Counter(choice for choice in last_choice.values() if choice is not None)
    assert poll_tally(demo_store, POLL) == {option: held[option] for option in options}
    assert dropped == 0
    assert not behind, f"{len(behind)} sockets behind; first: {crowd.totals(behind[0])} != {final}"
    assert "ERROR" not in log and "Traceback" not in log, log[-3000:]
    assert rss_end <= 1.5 * rss_start, (rss_start, rss_end)
