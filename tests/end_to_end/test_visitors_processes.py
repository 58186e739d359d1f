"""Unique visitors and bot views through two real daphne workers sharing DynamoDB Local.

Every request comes from 127.0.0.1, so the site runs as behind one proxy (COUNTERS_PROXY_COUNT=1)
and each visitor's address is the one X-Forwarded-For carries. A visitor's views alternate between
the two workers and between the counted page and the beacon, so neither worker's memory of seen
visitors can make the count right on its own: the store's conditions must.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import pytest
import requests

from tests.support.processes import SiteProcess
from tests.support.site import site_env_for

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.{}"
CRAWLERS = [
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 "
    "Safari/537.36",
]
VISITORS = 50
VIEWS_EACH = 4


def visitor(i: int) -> tuple[str, str]:
    """Address and user agent of visitor i: half differ by address, half share one and differ by agent."""
    if i < VISITORS // 2:
        return f"203.0.113.{i + 1}", FIREFOX.format(0)
    return "203.0.113.200", FIREFOX.format(i)


@pytest.fixture
def workers(demo_store, dynamodb_local, tmp_path) -> Iterator[list[SiteProcess]]:
    """Two site processes on one table, each believing one proxy in front of it, bots counted apart."""
    env = site_env_for(
        demo_store, dynamodb_local, tmp_path, COUNTERS_PROXY_COUNT="1", COUNTERS_COUNT_BOTS_APART="true"
    )
    with ExitStack() as stack:
        sites = [SiteProcess(env=env, log_path=tmp_path / f"site-{n}.log") for n in range(2)]
        for site in sites:
            stack.enter_context(site)
        yield sites


def csrf_token(site: SiteProcess) -> str:
    """A csrftoken cookie, from a page that is not under test."""
    return requests.get(f"{site.url}/pages/pricing/", timeout=30).cookies["csrftoken"]


def view(site: SiteProcess, page: str, address: str, agent: str, *, beacon: bool, token: str) -> int:
    """One counted view of `page` from `address` with `agent`: a page GET or a beacon POST."""
    headers = {"X-Forwarded-For": address, "User-Agent": agent}
    if beacon:
        headers |= {"X-CSRFToken": token, "Cookie": f"csrftoken={token}"}
        return requests.post(f"{site.url}/api/views/{page}", headers=headers, timeout=60).status_code
    return requests.get(f"{site.url}/pages/{page}/", headers=headers, timeout=60).status_code


def numbers(site: SiteProcess, page: str) -> tuple[int, int, int]:
    """Views, unique visitors today and bot views of a page, as the API tells them."""
    state = requests.get(f"{site.url}/api/counters/{page}", timeout=30).json()
    return state["value"], state["visitors_today"], state["bot_views"]


def site_visitors(site: SiteProcess) -> int:
    """Unique visitors of the whole site today, as the dashboard's overview tells them."""
    return requests.get(f"{site.url}/api/overview", timeout=30).json()["visitors_today"]


def assert_nothing_personal(store, sites: list[SiteProcess], clients: list[tuple[str, str]]) -> None:
    """A scan of the whole table, and the sites' logs, hold no address, user agent or plain hash of them."""
    paginator = store.gateway.retrying.get_paginator("scan")
    table = json.dumps([page["Items"] for page in paginator.paginate(TableName=store.table)], default=str)
    logs = "".join(site.log_text() for site in sites)
    secrets = set()
    for address, agent in clients:
        for text in (address, agent, address + agent):
            secrets |= {
                text,
                hashlib.sha256(text.encode()).hexdigest(),
                hashlib.md5(text.encode()).hexdigest(),
            }
    assert "SEEN#" in table, "the scan did read the visitors' markers"
    for secret in secrets:
        assert secret not in table, f"the table holds {secret!r}"
        assert secret not in logs, f"a site logged {secret!r}"


@pytest.mark.processes
def test_fifty_visitors_four_views_each_and_crawlers_on_a_plain_and_a_hot_page(demo_store, workers):
    demo_store.make_hot("welcome", shards=4)
    token = csrf_token(workers[0])
    before = {page: numbers(workers[0], page) for page in ("docs", "welcome")}
    site_before = site_visitors(workers[0])
    requests_ = [
        (workers[n % 2], page, *visitor(i), n >= 2)
        for page in ("docs", "welcome")
        for i in range(VISITORS)
        for n in range(VIEWS_EACH)
    ]
    requests_ += [(workers[n % 2], "docs", f"198.51.100.{n}", CRAWLERS[n % 3], n % 2 == 0) for n in range(12)]
    random.Random(14).shuffle(requests_)
    with ThreadPoolExecutor(32) as pool:
        statuses = list(pool.map(lambda r: view(r[0], r[1], r[2], r[3], beacon=r[4], token=token), requests_))
    assert statuses.count(200) == len(requests_), statuses

    docs, welcome = numbers(workers[1], "docs"), numbers(workers[1], "welcome")
    assert docs == (before["docs"][0] + 200, before["docs"][1] + 50, before["docs"][2] + 12)
    assert welcome == (before["welcome"][0] + 200, before["welcome"][1] + 50, before["welcome"][2])
    history = requests.get(
        f"{workers[0].url}/api/counters/welcome/history?series=visitors", timeout=30
    ).json()
    assert history["points"][-1]["count"] == welcome[1]
    assert site_visitors(workers[1]) == site_before + VISITORS, "each person once for the whole site"
    assert_nothing_personal(
        demo_store,
        workers,
        [visitor(i) for i in range(VISITORS)] + [(f"198.51.100.{n}", c) for n, c in enumerate(CRAWLERS)],
    )


@pytest.mark.processes
def test_two_first_views_of_one_visitor_at_the_same_instant_count_one_visitor(demo_store, workers):
    token = csrf_token(workers[0])
    before = numbers(workers[0], "docs")
    pairs = 10
    for i in range(pairs):
        address, agent, start = f"192.0.2.{i + 1}", FIREFOX.format(7), threading.Barrier(2)

        def first_view(n: int, address=address, agent=agent, start=start) -> int:
            start.wait()
            return view(workers[n], "docs", address, agent, beacon=n == 1, token=token)

        with ThreadPoolExecutor(2) as pool:
            assert list(pool.map(first_view, range(2))) == [200, 200]
    assert numbers(workers[1], "docs") == (before[0] + 2 * pairs, before[1] + pairs, before[2])
    assert_nothing_personal(
        demo_store, workers, [(f"192.0.2.{i + 1}", FIREFOX.format(7)) for i in range(pairs)]
    )
