"""The vote transaction against DynamoDB Local: one vote per voter, moves, retractions, floors, races."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from counters.domain.values import IdempotencyClaim, PollOption
from counters.exceptions import Conflict, IdempotencyRace, InvalidInput, PollClosed, UnknownCounter
from counters.store.dynamodb import votes
from counters.web.http.errors import answer_for
from tests.support.voting import assert_poll_consistent, poll_tally


def test_first_vote_counts_and_same_option_again_changes_nothing(demo_store):
    change = demo_store.cast_vote("language", voter="anon:a", option="python")
    assert (change.previous, change.choice, change.counted) == (None, "python", True)
    again = demo_store.cast_vote("language", voter="anon:a", option="python")
    assert again.counted is False
    assert poll_tally(demo_store, "language")["python"] == 1
    assert demo_store.get("language.python").version == 1
    assert_poll_consistent(demo_store, "language")


def test_vote_moves_and_retracts(demo_store):
    demo_store.cast_vote("language", voter="anon:a", option="python")
    demo_store.cast_vote("language", voter="anon:b", option="python")
    moved = demo_store.cast_vote("language", voter="anon:a", option="go")
    assert (moved.previous, moved.choice) == ("python", "go")
    assert poll_tally(demo_store, "language") == {"python": 1, "go": 1, "rust": 0, "typescript": 0}
    retracted = demo_store.cast_vote("language", voter="anon:a", option=None)
    assert (retracted.previous, retracted.choice, retracted.counted) == ("go", None, True)
    assert demo_store.cast_vote("language", voter="anon:a", option=None).counted is False
    assert poll_tally(demo_store, "language")["go"] == 0
    assert demo_store.voter_choices("anon:b", ["language", "deploy"]) == {"language": "python"}
    # Voting again after a retraction starts from the kept record (its revision keeps growing).
    demo_store.cast_vote("language", voter="anon:a", option="rust")
    assert demo_store.voter_record("language", "anon:a").rev == 4
    assert assert_poll_consistent(demo_store, "language") == {"anon:a": "rust", "anon:b": "python"}


def test_unknown_option_closed_poll_and_unknown_poll_write_nothing(demo_store):
    with pytest.raises(InvalidInput):
        demo_store.cast_vote("language", voter="anon:a", option="cobol")
    with pytest.raises(UnknownCounter):
        demo_store.cast_vote("nope", voter="anon:a", option="python")
    demo_store.set_poll_closed("language", closed=True)
    with pytest.raises(PollClosed):
        demo_store.cast_vote("language", voter="anon:a", option="python")
    assert demo_store.poll_voters("language") == {}
    demo_store.set_poll_closed("language", closed=False)
    assert demo_store.cast_vote("language", voter="anon:a", option="python").counted


def cast_vote_reading_with(store, reads, poll_id: str, *, voter: str, option: str | None):
    """The store's vote transaction deciding from `reads`, with no memory: it reads first, as a process
    that knows nothing would."""
    return votes.cast_vote(store.gateway, poll_id, voter=voter, option=option, reads=reads)


def test_poll_closed_between_read_and_write_is_refused_by_the_transaction(demo_store):
    def read_then_close(poll_id, voter, claim):
        found = votes.vote_reads(demo_store.gateway, poll_id, voter, claim)
        demo_store.set_poll_closed(poll_id, closed=True)  # closes after our read, before our write
        return found

    with pytest.raises((PollClosed, Conflict)):
        cast_vote_reading_with(demo_store, read_then_close, "language", voter="anon:a", option="python")
    assert poll_tally(demo_store, "language")["python"] == 0


def test_move_from_an_option_reset_to_zero_never_goes_below_zero(demo_store):
    demo_store.cast_vote("language", voter="anon:a", option="python")
    state = demo_store.get("language.python")
    demo_store.reset("language.python", expected_version=state.version, actor="staff", reason="test")
    moved = demo_store.cast_vote("language", voter="anon:a", option="go")
    assert moved.counted
    assert poll_tally(demo_store, "language") == {"python": 0, "go": 1, "rust": 0, "typescript": 0}


def test_idempotency_record_is_written_once(demo_store):
    claim = IdempotencyClaim(key="k1", fingerprint="f", expires_at=2**40)
    demo_store.cast_vote("language", voter="anon:a", option="python", claim=claim)
    with pytest.raises(IdempotencyRace):
        demo_store.cast_vote("language", voter="anon:a", option="go", claim=claim)
    stored = demo_store.stored_reply("language", "k1")
    assert (stored.fingerprint, stored.choice, stored.counted, stored.voter) == (
        "f",
        "python",
        True,
        "anon:a",
    )
    assert poll_tally(demo_store, "language")["go"] == 0
    # An expired record is gone for the key's purposes, even before TTL deletes it.
    expired = IdempotencyClaim(key="k2", fingerprint="f", expires_at=1)
    demo_store.cast_vote("language", voter="anon:a", option="go", claim=expired)
    assert demo_store.stored_reply("language", "k2") is None
    demo_store.cast_vote("language", voter="anon:a", option="rust", claim=expired)
    assert poll_tally(demo_store, "language")["rust"] == 1


def test_threads_clicking_for_many_voters_keep_totals_exact(demo_store):
    options = [o.id for o in demo_store.get_poll("language").options] + [None]
    voters = [f"anon:{n}" for n in range(12)]
    rng = random.Random(7)
    clicks = [(voter, rng.choice(options)) for voter in voters for _ in range(6)]
    rng.shuffle(clicks)

    def click(entry):
        voter, option = entry
        try:
            demo_store.cast_vote("language", voter=voter, option=option)
            return "ok"
        except Conflict:
            return "conflict"

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(click, clicks))
    assert results.count("ok") > 0
    held = assert_poll_consistent(demo_store, "language")
    for voter in voters:
        assert demo_store.voter_record("language", voter).option == held.get(voter)


def test_add_option_and_refuse_a_taken_id(demo_store):
    poll = demo_store.add_poll_option("deploy", PollOption("edge", "At the edge"))
    assert [o.id for o in poll.options][-1] == "edge"
    assert demo_store.get("deploy.edge").kind == "votes"
    assert demo_store.cast_vote("deploy", voter="anon:a", option="edge").counted
    with pytest.raises(Conflict):
        demo_store.add_poll_option("deploy", PollOption("edge", "Again"))
    assert [o.id for o in demo_store.get_poll("deploy").options].count("edge") == 1


def interfering(store, *, times: int, moves: list[str]):
    """Reads of a vote after each of which (the next `times`) the same voter's other tab moves the vote."""
    state = {"left": times, "next": 0}

    def reads_then_other_tab(poll_id, voter, claim):
        found = votes.vote_reads(store.gateway, poll_id, voter, claim)
        if state["left"] > 0:
            state["left"] -= 1
            other = moves[state["next"] % len(moves)]
            state["next"] += 1
            # The other tab reads plainly, and knows nothing either.
            votes.cast_vote(store.gateway, poll_id, voter=voter, option=other)
        return found

    return reads_then_other_tab


def test_a_concurrent_change_cancels_the_transaction_which_is_retried(demo_store):
    demo_store.cast_vote("language", voter="anon:a", option="python")
    # Every attempt reads (no guess from a process's memory), so the other tab acts between read and write.
    reads = interfering(demo_store, times=1, moves=["go"])
    change = cast_vote_reading_with(demo_store, reads, "language", voter="anon:a", option="rust")
    assert (change.previous, change.choice) == ("go", "rust")  # decided again from a fresh read
    assert assert_poll_consistent(demo_store, "language") == {"anon:a": "rust"}


def test_a_vote_that_keeps_losing_the_race_is_a_conflict_and_writes_nothing(demo_store):
    demo_store.cast_vote("language", voter="anon:a", option="python")
    reads = interfering(demo_store, times=100, moves=["go", "typescript"])
    with pytest.raises(Conflict) as raised:
        cast_vote_reading_with(demo_store, reads, "language", voter="anon:a", option="rust")
    answer = answer_for(raised.value)
    assert answer.code == "conflict" and answer.status == 409
    assert poll_tally(demo_store, "language")["rust"] == 0
    assert_poll_consistent(demo_store, "language")
