"""DynamoDB throttling: 503 with Retry-After, nothing counted, and never a resent increment."""

from __future__ import annotations

import pytest
import requests

from tests.support.faultproxy import counter_key
from tests.support.reliability import beacon, csrf_session, error_code

pytestmark = pytest.mark.processes
DOCS = counter_key("docs")


@pytest.mark.parametrize("error_type", ["ProvisionedThroughputExceededException", "ThrottlingException"])
def test_throttled_increment_is_a_503_with_retry_after_and_is_sent_once(
    proxied_site, proxy, demo_store, error_type
):
    session = csrf_session(proxied_site.url)
    before = demo_store.get("docs").value
    proxy.throttle(operation="UpdateItem", contains=DOCS, times=1, error_type=error_type)

    response = beacon(session, proxied_site.url, "docs")

    assert response.status_code == 503
    assert error_code(response) == "store_unavailable"
    assert int(response.headers["Retry-After"]) > 0
    assert proxy.count("UpdateItem", contains=DOCS) == 1, "the SDK must not resend an increment"
    assert demo_store.get("docs").value == before
    # The next beacon goes through and counts exactly one more.
    assert beacon(session, proxied_site.url, "docs").json()["value"] == before + 1


def test_throttled_reads_are_retried_then_a_503_with_retry_after(proxied_site, proxy):
    proxy.throttle(operation="Query")

    response = requests.get(f"{proxied_site.url}/api/counters", timeout=30)

    assert response.status_code == 503
    assert error_code(response) == "store_unavailable"
    assert int(response.headers["Retry-After"]) > 0
    # Reads are safe to resend: the retrying client tried more than once before giving up.
    assert proxy.count("Query") > 1


def test_a_page_under_throttling_renders_with_counts_unavailable(proxied_site, proxy):
    proxy.throttle()

    response = requests.get(f"{proxied_site.url}/pages/docs/", timeout=30)

    assert response.status_code == 200
    assert 'id="counts-unavailable"' in response.text
    assert "View count unavailable" in response.text
