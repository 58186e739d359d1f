"""A view beacon whose DynamoDB answer is lost: 503, and the view counts at most once, never twice."""

from __future__ import annotations

import pytest

from tests.support.faultproxy import counter_key
from tests.support.reliability import beacon, csrf_session, error_code

pytestmark = pytest.mark.processes
DOCS = counter_key("docs")


def test_lost_answer_is_a_503_and_counts_once_not_twice(proxied_site, proxy, demo_store):
    session = csrf_session(proxied_site.url)
    before = demo_store.get("docs").value
    proxy.arm("lost_response", operation="UpdateItem", contains=DOCS, times=1)

    response = beacon(session, proxied_site.url, "docs")

    assert response.status_code == 503
    assert error_code(response) == "outcome_unknown"
    assert "once or not at all" in response.json()["detail"]
    assert int(response.headers["Retry-After"]) > 0
    # Increments are not idempotent, so the SDK must not resend them: one UpdateItem went out.
    assert proxy.count("UpdateItem", contains=DOCS) == 1
    assert demo_store.get("docs").value == before + 1, "DynamoDB applied it once; nothing resent it"


def test_connection_cut_before_forwarding_counts_nothing(proxied_site, proxy, demo_store):
    session = csrf_session(proxied_site.url)
    before = demo_store.get("docs").value
    proxy.arm("reset", operation="UpdateItem", contains=DOCS, times=1)

    response = beacon(session, proxied_site.url, "docs")

    assert response.status_code == 503
    assert error_code(response) == "outcome_unknown", "the site cannot tell where the request was lost"
    assert proxy.count("UpdateItem", contains=DOCS) == 1
    assert demo_store.get("docs").value == before


def test_next_beacon_after_a_lost_answer_counts_normally(proxied_site, proxy, demo_store):
    session = csrf_session(proxied_site.url)
    before = demo_store.get("docs").value
    proxy.arm("lost_response", operation="UpdateItem", contains=DOCS, times=1)
    assert beacon(session, proxied_site.url, "docs").status_code == 503

    response = beacon(session, proxied_site.url, "docs")

    assert response.status_code == 200
    assert response.json()["value"] == before + 2
    assert proxy.count("UpdateItem", contains=DOCS) == 2
