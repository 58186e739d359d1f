"""DynamoDB throttling: 503 with Retry-After, nothing counted, and never a resent increment."""

from __future__ import annotations

import pytest

from tests.support.reliability import csrf_client, error_code
from tests.support.store_faults import counter_key, store_faults

DOCS = counter_key("docs")


@pytest.mark.parametrize("error_type", ["ProvisionedThroughputExceededException", "ThrottlingException"])
def test_throttled_increment_is_a_503_with_retry_after_and_is_sent_once(demo_store, error_type):
    client = csrf_client()
    before = demo_store.get("docs").value
    with store_faults(demo_store) as faults:
        faults.arm("throttle", operation="UpdateItem", contains=DOCS, times=1, error_type=error_type)

        response = client.post("/api/views/docs")

        assert response.status_code == 503
        assert error_code(response) == "store_unavailable"
        assert int(response["Retry-After"]) > 0
        assert faults.count("UpdateItem", contains=DOCS) == 1, "the SDK must not resend an increment"
        assert demo_store.get("docs").value == before
        # The next beacon goes through and counts exactly one more.
        assert client.post("/api/views/docs").json()["value"] == before + 1


def test_throttled_reads_are_retried_then_a_503_with_retry_after(demo_store, client):
    with store_faults(demo_store) as faults:
        faults.arm("throttle", operation="Query")

        response = client.get("/api/counters")

    assert response.status_code == 503
    assert error_code(response) == "store_unavailable"
    assert int(response["Retry-After"]) > 0
    # Reads are safe to resend: the retrying client tried more than once before giving up.
    assert faults.count("Query") > 1


def test_a_page_under_throttling_renders_with_counts_unavailable(demo_store, client):
    with store_faults(demo_store) as faults:
        faults.arm("throttle")

        response = client.get("/pages/docs/")

    assert response.status_code == 200
    text = response.content.decode()
    assert 'id="counts-unavailable"' in text
    assert "View count unavailable" in text
