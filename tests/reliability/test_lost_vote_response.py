"""A vote whose DynamoDB answer is lost: resent with the same Idempotency-Key, it counts exactly once."""

from __future__ import annotations

import json
import uuid

import pytest

from counters.store.dynamodb.clients import RETRY_ATTEMPTS
from tests.support.reliability import error_code
from tests.support.voting import HttpVoter, assert_poll_consistent, poll_tally, voter_id

pytestmark = pytest.mark.processes
POLL = "language"
VOTE_WRITE = "TransactWriteItems"
# A vote's transaction holds the voter's record; a page view's first-visit transaction does not.
VOTE_ONLY = ("VOTER#",)


def test_lost_vote_answer_resent_with_the_same_key_counts_once(proxied_site, proxy, demo_store):
    voter = HttpVoter(proxied_site.url).visit()
    before = poll_tally(demo_store, POLL)
    key = uuid.uuid4().hex
    proxy.arm("lost_response", operation=VOTE_WRITE, contains=VOTE_ONLY, times=1)

    first = voter.vote(POLL, "python", key=key)

    # The SDK resent the transaction with its ClientRequestToken, so DynamoDB applied it only once.
    assert first.status_code == 200, first.text
    sent = [seen for seen in proxy.seen if seen.operation == VOTE_WRITE and VOTE_ONLY[0] in seen.body]
    assert [seen.action for seen in sent] == ["lost_response", "forward"]
    assert len({json.loads(seen.body)["ClientRequestToken"] for seen in sent}) == 1
    assert poll_tally(demo_store, POLL) == {**before, "python": before["python"] + 1}

    resent = voter.vote(POLL, "python", key=key)

    assert resent.status_code == 200, resent.text
    assert resent.headers.get("Idempotent-Replayed") == "true"
    assert resent.json() == first.json()
    assert poll_tally(demo_store, POLL) == {**before, "python": before["python"] + 1}

    replay = voter.vote(POLL, "python", key=key)

    assert replay.status_code == 200, replay.text
    assert replay.headers.get("Idempotent-Replayed") == "true"
    assert replay.json() == first.json()
    vote_writes = proxy.count(VOTE_WRITE, contains=VOTE_ONLY)
    assert vote_writes == 2, "replays answer from the stored reply, writing nothing"
    assert poll_tally(demo_store, POLL) == {**before, "python": before["python"] + 1}
    assert voter.choice(POLL) == "python"
    voters = assert_poll_consistent(demo_store, POLL)
    assert list(voters.values()) == ["python"]


def test_vote_answer_lost_on_every_sdk_attempt_is_a_503_and_a_resend_counts_once(
    proxied_site, proxy, demo_store
):
    voter = HttpVoter(proxied_site.url).visit()
    before = poll_tally(demo_store, POLL)
    key = uuid.uuid4().hex
    proxy.arm("lost_response", operation=VOTE_WRITE, contains=VOTE_ONLY, times=RETRY_ATTEMPTS)

    first = voter.vote(POLL, "go", key=key)

    assert first.status_code == 503, first.text
    # Not "store_unavailable" (nothing written): the vote may have committed, and here it did.
    assert error_code(first) == "outcome_unknown"
    assert int(first.headers["Retry-After"]) > 0
    assert proxy.count(VOTE_WRITE, contains=VOTE_ONLY) == RETRY_ATTEMPTS
    # Every attempt reached DynamoDB with one ClientRequestToken: the vote is in, exactly once.
    assert poll_tally(demo_store, POLL) == {**before, "go": before["go"] + 1}

    resent = voter.vote(POLL, "go", key=key)

    assert resent.status_code == 200, resent.text
    assert resent.headers.get("Idempotent-Replayed") == "true", "the first send committed"
    assert resent.json()["choice"] == "go"
    assert resent.json()["counted"] is True
    assert poll_tally(demo_store, POLL) == {**before, "go": before["go"] + 1}

    replay = voter.vote(POLL, "go", key=key)

    assert replay.status_code == 200, replay.text
    assert replay.headers.get("Idempotent-Replayed") == "true"
    assert replay.json()["choice"] == "go"
    assert poll_tally(demo_store, POLL) == {**before, "go": before["go"] + 1}
    vote_writes = proxy.count(VOTE_WRITE, contains=VOTE_ONLY)
    assert vote_writes == RETRY_ATTEMPTS, "resends with a used key write nothing"
    assert voter.choice(POLL) == "go"
    assert assert_poll_consistent(demo_store, POLL) == {f"anon:{voter_id(voter)}": "go"}
