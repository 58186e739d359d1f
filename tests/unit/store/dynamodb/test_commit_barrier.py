"""The embedded store's commit barrier: a transaction is answered after a read that waits for its COMMIT."""

from __future__ import annotations

import pytest

from counters.exceptions import OutcomeUnknown
from counters.store.dynamodb.backend import DynamoCounterStore
from counters.store.dynamodb.clients import Connection
from tests.support.round_trips import round_trips
from tests.support.store_faults import store_faults
from tests.support.voting import poll_tally

POLL = "language"


@pytest.fixture
def embedded_like(demo_store) -> DynamoCounterStore:
    """The demo table through a store that reads after each transaction, as on the embedded store."""
    clients = {"client": demo_store.client, "retrying_client": demo_store.retrying}
    return DynamoCounterStore(**clients, table=demo_store.table, commit_barrier=True)


def test_a_vote_is_answered_after_a_consistent_read_of_its_own_items(embedded_like):
    with round_trips(embedded_like) as counted:
        change = embedded_like.cast_vote(POLL, voter="anon:barrier", option="go")
    assert change.counted
    assert counted.of_thread()[-2:] == ["TransactWriteItems", "GetItem"]


def test_without_the_barrier_a_vote_is_one_transaction(demo_store):
    demo_store.cast_vote(POLL, voter="anon:warm", option="go")  # the process learns the poll
    with round_trips(demo_store) as counted:
        demo_store.cast_vote(POLL, voter="anon:plain", option="go")
    assert counted.of_thread() == ["TransactWriteItems"]


@pytest.mark.parametrize("fault", ["reset", "lost_response", "throttle"])
def test_a_barrier_read_that_fails_leaves_the_outcome_unknown(embedded_like, fault):
    before = poll_tally(embedded_like, POLL)
    with store_faults(embedded_like) as faults:
        faults.arm(fault, operation="GetItem", error_type="ThrottlingException")
        with pytest.raises(OutcomeUnknown, match="once or not at all"):
            embedded_like.cast_vote(POLL, voter="anon:unsure", option="rust")
    # DynamoDB took it; a resend with the vote's Idempotency-Key would answer from it, never count twice.
    assert poll_tally(embedded_like, POLL)["rust"] == before["rust"] + 1


def test_amazon_dynamodb_never_pays_for_the_read(settings):
    settings.DYNAMODB_ENDPOINT_URL = "https://dynamodb.eu-west-1.amazonaws.com"
    settings.AWS_REGION = "eu-west-1"
    store = DynamoCounterStore.from_settings()
    try:
        assert not store.gateway.commit_barrier
    finally:
        store.close()


def test_only_the_embedded_dynamodb_local_reads_after_a_transaction():
    assert Connection("http://127.0.0.1:8000", "us-east-1", embedded=True).commit_barrier
    assert not Connection("http://127.0.0.1:8000", "us-east-1").commit_barrier
