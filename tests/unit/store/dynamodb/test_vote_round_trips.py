"""Store round trips per vote, counted on the wire to DynamoDB Local: two for a vote, whatever it does."""

from __future__ import annotations

import pytest

from counters import services
from counters.exceptions import PollClosed
from tests.support.store_faults import store_faults
from tests.support.voting import poll_tally

POLL = "language"


def round_trips(store, action) -> list[str]:
    """The DynamoDB operations `action` sent, in order."""
    with store_faults(store) as faults:
        action()
    return [seen.operation for seen in faults.seen]


def vote(voter: str, option: str | None, key: str | None = None):
    if option is None:
        return lambda: services.vote_retract(poll_id=POLL, voter=voter, idempotency_key=key)
    return lambda: services.vote_cast(poll_id=POLL, voter=voter, option=option, idempotency_key=key)


def test_a_vote_move_or_retraction_is_its_transaction_and_one_read_of_the_totals(demo_store):
    vote("anon:warm", "go")()  # the process has read the poll once
    expected = ["TransactWriteItems", "BatchGetItem"]
    assert round_trips(demo_store, vote("anon:a", "python")) == expected  # a first vote: no read before
    assert round_trips(demo_store, vote("anon:a", "rust", key="k1")) == expected  # a move, with a key
    assert round_trips(demo_store, vote("anon:a", None)) == expected  # a retraction
    assert poll_tally(demo_store, POLL) == {"python": 0, "go": 1, "rust": 0, "typescript": 0}


def test_a_wrong_guess_costs_one_read_and_counts_once(demo_store):
    vote("anon:a", "python")()
    # Another process moved this voter's vote: this process still remembers "python".
    demo_store.vote_memory.forget(POLL, "anon:a")
    other = type(demo_store)(
        client=demo_store.client, retrying_client=demo_store.retrying, table=demo_store.table
    )
    other.cast_vote(POLL, voter="anon:a", option="go")
    sent = round_trips(demo_store, vote("anon:a", "rust"))
    assert sent == ["TransactWriteItems", "BatchGetItem", "TransactWriteItems", "BatchGetItem"]
    assert poll_tally(demo_store, POLL) == {"python": 0, "go": 0, "rust": 1, "typescript": 0}


def test_a_replay_writes_nothing_and_a_closed_poll_is_refused_from_a_read(demo_store):
    vote("anon:warm", "go")()
    vote("anon:a", "python", key="k1")()
    replay = round_trips(demo_store, vote("anon:a", "python", key="k1"))
    assert not {"TransactWriteItems", "UpdateItem", "PutItem"} & set(replay), replay
    assert poll_tally(demo_store, POLL)["python"] == 1
    demo_store.set_poll_closed(POLL, closed=True)
    # The process still has the poll as open: the transaction refuses it, and a read tells why.
    with pytest.raises(PollClosed):
        vote("anon:b", "python")()
    assert poll_tally(demo_store, POLL)["python"] == 1
