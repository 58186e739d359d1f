"""A store that accepts requests and never answers: pages fail fast into "counts unavailable", writes 503."""

from __future__ import annotations

import pytest

from tests.support.reliability import beacon, csrf_session, error_code

pytestmark = pytest.mark.processes
HANG = 600  # longer than any test: the proxy drops these requests when it stops


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
