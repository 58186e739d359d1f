"""Store round trips per vote, counted on the wire to DynamoDB Local, with a server's loop running.

A vote's request waits for its transaction alone once the process knows the poll's recent totals; the
read for the live push runs after it in the read-back, off the request path, and the push then shows
the stored totals exactly.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from counters import services
from counters.domain.names import option_counter_name
from counters.exceptions import PollClosed
from counters.live.broadcast import Broadcaster
from counters.live.loop import live_loop
from counters.services.vote_totals import KnownTotals
from tests.support.live import RecordingBroadcaster
from tests.support.round_trips import round_trips
from tests.support.server_loop import server_loop
from tests.support.voting import poll_tally

POLL = "language"
OPTIONS = ("python", "go", "rust", "typescript")
TRANSACTION, READ = "TransactWriteItems", "BatchGetItem"


@pytest.fixture
def pushed(process_runtime) -> Iterator[list[tuple[str, int, int]]]:
    """(name, value, version) as the live push sends them, with a server loop bound."""
    sent: list[tuple[str, int, int]] = []

    async def capture(message: dict) -> None:
        sent.extend((c["name"], c["value"], c["version"]) for c in message["counters"])

    process_runtime.give("broadcaster", Broadcaster(live_loop(), send=capture))
    # A pause of this busy machine between two votes must not turn an answer into a read.
    process_runtime.give("known_totals", KnownTotals(seconds=600.0))
    with server_loop():
        yield sent


def vote(voter: str, option: str | None, key: str | None = None):
    if option is None:
        return lambda: services.vote_retract(poll_id=POLL, voter=voter, idempotency_key=key)
    return lambda: services.vote_cast(poll_id=POLL, voter=voter, option=option, idempotency_key=key)


def sent_by(store, action) -> tuple[list[str], dict]:
    """The DynamoDB operations `action` sent from its own thread, in order, and its answer's totals."""
    with round_trips(store) as counted:
        outcome = action()
    return counted.of_thread(), {o["id"]: o["votes"] for o in outcome.body["poll"]["options"]}


def pushed_settles(store, pushed: list[tuple[str, int, int]]) -> dict[str, int]:
    """Wait until the newest pushed state of every option is the stored one; the pushed totals."""
    names = [option_counter_name(POLL, option) for option in OPTIONS]
    deadline = time.monotonic() + 15
    while True:
        stored = {state.name: (state.value, state.version) for state in store.get_many(names)}
        newest: dict[str, tuple[int, int]] = {}
        for name, value, version in list(pushed):
            if name not in newest or version > newest[name][1]:
                newest[name] = (value, version)
        if all(newest.get(name) == state for name, state in stored.items()) or time.monotonic() > deadline:
            return {name.split(".", 1)[1]: value for name, (value, _) in newest.items()}
        time.sleep(0.05)


def test_a_first_vote_a_move_and_a_retraction_each_wait_for_their_transaction_alone(demo_store, pushed):
    # The process knows neither the poll nor its totals yet: one read before, one after.
    assert sent_by(demo_store, vote("anon:warm", "go"))[0] == [READ, TRANSACTION, READ]
    sent, totals = sent_by(demo_store, vote("anon:a", "python"))  # a first vote
    assert (sent, totals) == ([TRANSACTION], {"python": 1, "go": 1, "rust": 0, "typescript": 0})
    sent, totals = sent_by(demo_store, vote("anon:a", "rust", key="k1"))  # a move, with a key
    assert (sent, totals) == ([TRANSACTION], {"python": 0, "go": 1, "rust": 1, "typescript": 0})
    sent, totals = sent_by(demo_store, vote("anon:a", None))  # a retraction
    assert (sent, totals) == ([TRANSACTION], {"python": 0, "go": 1, "rust": 0, "typescript": 0})
    tally = {"python": 0, "go": 1, "rust": 0, "typescript": 0}
    assert poll_tally(demo_store, POLL) == tally
    assert pushed_settles(demo_store, pushed) == tally


def test_a_replay_writes_nothing_and_reads_the_totals_of_its_time(demo_store, pushed):
    vote("anon:warm", "go")()
    vote("anon:a", "python", key="k1")()
    vote("anon:b", "python")()
    sent, totals = sent_by(demo_store, vote("anon:a", "python", key="k1"))
    # The read before the transaction finds the key's record: the answer reads only the totals.
    assert sent == [READ, READ], sent
    assert totals == {"python": 2, "go": 1, "rust": 0, "typescript": 0}
    assert poll_tally(demo_store, POLL)["python"] == 2


def test_a_wrong_guess_costs_one_read_and_counts_once(demo_store, pushed):
    vote("anon:a", "python")()
    # Another process moved this voter's vote: this process still remembers "python".
    other = type(demo_store)(
        client=demo_store.client, retrying_client=demo_store.retrying, table=demo_store.table
    )
    other.cast_vote(POLL, voter="anon:a", option="go")
    sent, totals = sent_by(demo_store, vote("anon:a", "rust"))
    assert sent == [TRANSACTION, READ, TRANSACTION], sent
    # What this process knew (python 1) with the change as made (go -> rust); the push then tells all.
    assert totals == {"python": 1, "go": 0, "rust": 1, "typescript": 0}
    tally = {"python": 0, "go": 0, "rust": 1, "typescript": 0}
    assert poll_tally(demo_store, POLL) == tally
    assert pushed_settles(demo_store, pushed) == tally


def test_a_closed_poll_is_refused_from_a_read(demo_store, pushed):
    vote("anon:warm", "go")()
    demo_store.set_poll_closed(POLL, closed=True)
    # The process still has the poll as open: the transaction refuses it, and a read tells why.
    with round_trips(demo_store) as counted, pytest.raises(PollClosed):
        vote("anon:b", "python")()
    assert counted.of_thread() == [TRANSACTION, READ]
    assert poll_tally(demo_store, POLL)["python"] == 0


def test_totals_known_too_long_ago_are_read_after_the_transaction(demo_store, pushed, process_runtime):
    process_runtime.give("known_totals", KnownTotals(seconds=0.0))
    vote("anon:warm", "go")()
    sent, totals = sent_by(demo_store, vote("anon:a", "python"))
    assert (sent, totals) == ([TRANSACTION, READ], {"python": 1, "go": 1, "rust": 0, "typescript": 0})


def test_without_a_server_loop_the_answer_and_the_push_read_once(demo_store, process_runtime):
    recording = process_runtime.give("broadcaster", RecordingBroadcaster())
    vote("anon:warm", "go")()
    sent, totals = sent_by(demo_store, vote("anon:a", "python"))
    assert (sent, totals) == ([TRANSACTION, READ], {"python": 1, "go": 1, "rust": 0, "typescript": 0})
    assert recording.triples[-1][:2] == ("language.python", 1)
