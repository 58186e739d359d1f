"""A store that accepts requests and never answers: pages fail fast into "counts unavailable", writes 503."""

from __future__ import annotations

import time

import pytest

from tests.reliability.conftest import FAST_TIMEOUTS
from tests.support.reliability import beacon, csrf_session, error_code
from tests.support.timing import scaled

pytestmark = pytest.mark.processes
HANG = 600  # longer than any test: the proxy drops these requests when it stops
COUNTER = {"/pages/docs/": "docs", "/": "dashboard"}  # the counter of each page's own view
TIMEOUT = float(FAST_TIMEOUTS["COUNTERS_DYNAMODB_READ_TIMEOUT"])  # the site's wait on one store call


READS = {"GetItem", "BatchGetItem", "Query", "Scan"}


def timed_get(session, url: str, proxy) -> tuple[object, float, list[tuple[str, str]]]:
    """GET `url`: the response, the seconds it took, and the store calls the proxy held meanwhile
    (operation and request body; batched background writes of history and tallies among them)."""
    held = len(proxy.seen)
    began = time.monotonic()
    response = session.get(url, timeout=30)
    elapsed = time.monotonic() - began
    return response, elapsed, [(s.operation, s.body) for s in proxy.seen[held:] if s.action == "delay"]


@pytest.mark.parametrize("path", ["/pages/docs/", "/"])
def test_a_hung_store_costs_a_page_one_timeout(proxied_site, proxy, demo_store, path):
    """docs/operations.md: once a page's own view could not be counted it skips its reads."""
    session = csrf_session(proxied_site.url)
    proxy.arm("delay", seconds=HANG)

    page, elapsed, held = timed_get(session, f"{proxied_site.url}{path}", proxy)

    assert page.status_code == 200 and 'data-counts="unavailable"' in page.text
    own_view = f'"C#{COUNTER[path]}"'
    assert [operation for operation, body in held if own_view in body] == ["UpdateItem"], held
    assert [operation for operation, _ in held if operation in READS] == [], held  # no read after it
    # One timeout, not two: the hung write's wait and no more, plus room for the page itself.
    assert 0.9 * TIMEOUT <= elapsed <= 1.5 * TIMEOUT + scaled(0.5), elapsed


def test_hung_store_gives_pages_with_counts_unavailable_and_writes_503(proxied_site, proxy, demo_store):
    session = csrf_session(proxied_site.url)
    before = demo_store.get("docs").value
    proxy.arm("delay", seconds=HANG)

    page = session.get(f"{proxied_site.url}/pages/docs/", timeout=30)
    dashboard = session.get(f"{proxied_site.url}/", timeout=30)
    write = beacon(session, proxied_site.url, "docs")
    listing = session.get(f"{proxied_site.url}/api/counters", timeout=30)

    assert page.status_code == 200
    assert "View count unavailable" in page.text
    assert dashboard.status_code == 200
    assert "Counts are unavailable right now: the counter store cannot be reached" in dashboard.text
    assert 'data-counts="unavailable"' in dashboard.text
    assert write.status_code == 503
    assert error_code(write) == "outcome_unknown"
    assert listing.status_code == 503
    assert error_code(listing) == "store_unavailable"
    assert "Retry-After" in listing.headers

    # The store answers again: the very next requests work, with no restart of the site (the hung
    # connections were given up by the site's timeouts; new ones are forwarded).
    proxy.clear()
    assert beacon(session, proxied_site.url, "docs").status_code == 200
    recovered = session.get(f"{proxied_site.url}/pages/docs/", timeout=30)
    assert '<p class="views">Viewed <span class="count"' in recovered.text
    assert "unavailable" not in recovered.text
    # The hung writes never reached DynamoDB: the two counted are the two that were answered 200.
    assert demo_store.get("docs").value == before + 2
