"""A view beacon whose DynamoDB answer is lost: 503, and the view counts at most once, never twice."""

from __future__ import annotations

from tests.support.reliability import csrf_client, error_code
from tests.support.store_faults import counter_key, store_faults

DOCS = counter_key("docs")


def beacon_meeting(store, action: str):
    """A docs beacon whose one UpdateItem meets `action`: its answer, the writes sent, the count's rise."""
    client = csrf_client()
    before = store.get("docs").value
    with store_faults(store) as faults:
        faults.arm(action, operation="UpdateItem", contains=DOCS, times=1)
        response = client.post("/api/views/docs")
    return response, faults.count("UpdateItem", contains=DOCS), store.get("docs").value - before


def test_lost_answer_is_a_503_and_counts_once_not_twice(demo_store):
    response, sent, rise = beacon_meeting(demo_store, "lost_response")

    assert response.status_code == 503
    assert error_code(response) == "outcome_unknown"
    assert "once or not at all" in response.json()["detail"]
    assert int(response["Retry-After"]) > 0
    # Increments are not idempotent, so the SDK must not resend them: one UpdateItem went out.
    assert sent == 1
    assert rise == 1, "DynamoDB applied it once; nothing resent it"


def test_connection_cut_before_sending_counts_nothing(demo_store):
    response, sent, rise = beacon_meeting(demo_store, "reset")

    assert response.status_code == 503
    assert error_code(response) == "outcome_unknown", "the site cannot tell where the request was lost"
    assert sent == 1
    assert rise == 0


def test_next_beacon_after_a_lost_answer_counts_normally(demo_store):
    client = csrf_client()
    before = demo_store.get("docs").value
    with store_faults(demo_store) as faults:
        faults.arm("lost_response", operation="UpdateItem", contains=DOCS, times=1)
        assert client.post("/api/views/docs").status_code == 503

        response = client.post("/api/views/docs")

        assert response.status_code == 200
        assert response.json()["value"] == before + 2
        assert faults.count("UpdateItem", contains=DOCS) == 2
