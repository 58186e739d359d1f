"""A vote whose DynamoDB answer is lost: resent with the same Idempotency-Key, it counts exactly once,
whether or not the client kept a voter cookie."""

from __future__ import annotations

import json
import uuid

from django.test import Client

from counters.store.dynamodb.clients import RETRY_ATTEMPTS
from tests.support.reliability import csrf_client, error_code
from tests.support.store_faults import store_faults
from tests.support.voting import assert_poll_consistent, poll_tally

POLL = "language"
URL = f"/api/polls/{POLL}/vote"
VOTE_WRITE = "TransactWriteItems"


def vote(client: Client, option: str, *, key: str):
    """POST a vote with an Idempotency-Key, as the page's script does."""
    return client.post(URL, {"option": option}, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key)


def assert_replayed(response, first=None) -> None:
    """Answered 200 from the stored reply of the first request with this key."""
    assert response.status_code == 200, response.content
    assert response.get("Idempotent-Replayed") == "true"
    if first is not None:
        assert response.json() == first.json()


def test_lost_vote_answer_resent_with_the_same_key_counts_once(demo_store):
    voter = csrf_client(page="/")
    before = poll_tally(demo_store, POLL)
    key = uuid.uuid4().hex
    with store_faults(demo_store) as faults:
        faults.arm("lost_response", operation=VOTE_WRITE, times=1)

        first = vote(voter, "python", key=key)

        # The SDK resent the transaction with its ClientRequestToken, so DynamoDB applied it only once.
        assert first.status_code == 200, first.content
        sent = [seen for seen in faults.seen if seen.operation == VOTE_WRITE]
        assert [seen.action for seen in sent] == ["lost_response", "forward"]
        assert len({json.loads(seen.body)["ClientRequestToken"] for seen in sent}) == 1
        assert poll_tally(demo_store, POLL) == {**before, "python": before["python"] + 1}

        assert_replayed(vote(voter, "python", key=key), first)
        assert_replayed(vote(voter, "python", key=key), first)
        assert faults.count(VOTE_WRITE) == 2, "replays answer from the stored reply, writing nothing"

    assert poll_tally(demo_store, POLL) == {**before, "python": before["python"] + 1}
    assert voter.get(URL).json()["choice"] == "python"
    assert list(assert_poll_consistent(demo_store, POLL).values()) == ["python"]


def test_vote_answer_lost_on_every_sdk_attempt_is_a_503_and_a_resend_counts_once(demo_store):
    voter = csrf_client(page="/")
    before = poll_tally(demo_store, POLL)
    key = uuid.uuid4().hex
    with store_faults(demo_store) as faults:
        faults.arm("lost_response", operation=VOTE_WRITE, times=RETRY_ATTEMPTS)

        first = vote(voter, "go", key=key)

        assert first.status_code == 503, first.content
        # Not "store_unavailable" (nothing written): the vote may have committed, and here it did.
        assert error_code(first) == "outcome_unknown"
        assert int(first["Retry-After"]) > 0
        assert faults.count(VOTE_WRITE) == RETRY_ATTEMPTS
        # Every attempt reached DynamoDB with one ClientRequestToken: the vote is in, exactly once.
        assert poll_tally(demo_store, POLL) == {**before, "go": before["go"] + 1}

        resent = vote(voter, "go", key=key)

        assert_replayed(resent)
        assert resent.json()["choice"] == "go"
        assert resent.json()["counted"] is True, "the first send committed"
        assert_replayed(vote(voter, "go", key=key))
        assert faults.count(VOTE_WRITE) == RETRY_ATTEMPTS, "resends with a used key write nothing"

    assert poll_tally(demo_store, POLL) == {**before, "go": before["go"] + 1}
    assert voter.get(URL).json()["choice"] == "go"
    assert list(assert_poll_consistent(demo_store, POLL).values()) == ["go"]


def test_a_cookieless_resend_after_outcome_unknown_counts_once_and_becomes_the_voter(demo_store):
    client = csrf_client(page="/")
    before = poll_tally(demo_store, POLL)
    key = uuid.uuid4().hex
    with store_faults(demo_store) as faults:
        faults.arm("lost_response", operation=VOTE_WRITE, times=RETRY_ATTEMPTS)
        del client.cookies["counters_voter"]  # an API client, or a phone whose first contact is the vote

        first = vote(client, "rust", key=key)

        assert (first.status_code, error_code(first)) == (503, "outcome_unknown")
        assert "counters_voter" not in first.cookies, "the client never saw the voter it was given"
        assert poll_tally(demo_store, POLL) == {**before, "rust": before["rust"] + 1}

        # Resent, as a client that never got a cookie does: without one, each time a new voter minted.
        resent = [vote(client, "rust", key=key) for _ in range(2)]
        del client.cookies["counters_voter"]
        resent.append(vote(client, "rust", key=key))

        for answer in resent:
            assert_replayed(answer)
            assert (answer.json()["choice"], answer.json()["counted"]) == ("rust", True)
        # A resend as a new voter goes straight to its transaction, as any first vote does (no read
        # first), and DynamoDB cancels it on the key's record; the resend that came with the cookie the
        # first replay set was answered from a read. Either way nothing more was written:
        assert poll_tally(demo_store, POLL) == {**before, "rust": before["rust"] + 1}

    assert poll_tally(demo_store, POLL) == {**before, "rust": before["rust"] + 1}
    # The replay set the cookie of the voter the first send counted for: the client is that voter now.
    assert client.get(URL).json()["choice"] == "rust"
    assert list(assert_poll_consistent(demo_store, POLL).values()) == ["rust"]
