"""Vote services on the memory store: cast, move, retract, and answers once per Idempotency-Key."""

from __future__ import annotations

import pytest

from counters import services
from counters.exceptions import (
    Conflict,
    IdempotencyKeyInUse,
    IdempotencyKeyReused,
    IdempotencyRace,
    InvalidInput,
    PollClosed,
    UnknownCounter,
)
from counters.services import idempotency


def votes(body: dict) -> dict[str, int]:
    """Option id -> votes, from a vote answer."""
    return {option["id"]: option["votes"] for option in body["poll"]["options"]}


def test_a_vote_answers_the_new_totals_and_pushes_its_counter(memory_demo_store, published):
    outcome = services.vote_cast(poll_id="language", voter="v1", option="go")
    assert outcome.replayed is False
    body = outcome.body
    assert (body["choice"], body["previous"], body["counted"]) == ("go", None, True)
    assert votes(body) == {"python": 0, "go": 1, "rust": 0, "typescript": 0}
    assert body["poll"]["total"] == 1
    assert published == [("language.go", 1, 1)]


def test_a_moved_vote_pushes_both_options(memory_demo_store, published):
    services.vote_cast(poll_id="language", voter="v1", option="go")
    body = services.vote_cast(poll_id="language", voter="v1", option="rust").body
    assert (body["choice"], body["previous"]) == ("rust", "go")
    assert votes(body)["go"] == 0 and votes(body)["rust"] == 1
    assert published[1:] == [("language.go", 0, 2), ("language.rust", 1, 1)]


def test_the_same_vote_again_counts_and_pushes_nothing(memory_demo_store, published):
    services.vote_cast(poll_id="language", voter="v1", option="go")
    body = services.vote_cast(poll_id="language", voter="v1", option="go").body
    assert body["counted"] is False and body["poll"]["total"] == 1
    assert len(published) == 1


def test_a_retraction_withdraws_the_vote(memory_demo_store, published):
    services.vote_cast(poll_id="language", voter="v1", option="go")
    body = services.vote_retract(poll_id="language", voter="v1").body
    assert (body["choice"], body["previous"], body["counted"]) == (None, "go", True)
    assert body["poll"]["total"] == 0
    assert published[-1] == ("language.go", 0, 2)


def test_a_key_sent_again_replays_the_same_change_with_the_totals_now(memory_demo_store, published):
    first = services.vote_cast(poll_id="language", voter="v1", option="go", idempotency_key="click-1")
    services.vote_cast(poll_id="language", voter="v2", option="rust")
    again = services.vote_cast(poll_id="language", voter="v1", option="go", idempotency_key="click-1")
    assert again.replayed is True
    # The same change as the first answer (nothing done twice), with the poll's totals as they are now.
    assert {key: again.body[key] for key in ("choice", "previous", "counted")} == {
        key: first.body[key] for key in ("choice", "previous", "counted")
    }
    assert (first.body["poll"]["total"], again.body["poll"]["total"]) == (1, 2)
    assert memory_demo_store.get("language.go").value == 1
    assert published == [("language.go", 1, 1), ("language.rust", 1, 1)]


def test_a_key_sent_with_another_request_is_refused(memory_demo_store, published):
    services.vote_cast(poll_id="language", voter="v1", option="go", idempotency_key="click-1")
    with pytest.raises(IdempotencyKeyReused):
        services.vote_cast(poll_id="language", voter="v1", option="rust", idempotency_key="click-1")
    with pytest.raises(IdempotencyKeyReused):
        services.vote_retract(poll_id="language", voter="v1", idempotency_key="click-1")
    assert memory_demo_store.voter_choices("v1", ["language"]) == {"language": "go"}


def test_a_resend_without_a_voter_of_its_own_becomes_the_keys_first_voter(memory_demo_store, published):
    first = services.vote_cast(
        poll_id="language", voter="anon:a", option="go", idempotency_key="k", new_voter=True
    )
    assert first.voter is None  # the asker's own answer
    for option in ("go", "go"):  # each resend is minted a new voter, and becomes the first one
        again = services.vote_cast(
            poll_id="language", voter="anon:new", option=option, idempotency_key="k", new_voter=True
        )
        assert (again.replayed, again.voter, again.body) == (True, "anon:a", first.body)
    with pytest.raises(IdempotencyKeyReused):  # the same key with another body, whoever sends it
        services.vote_cast(
            poll_id="language", voter="anon:new", option="rust", idempotency_key="k", new_voter=True
        )
    assert memory_demo_store.poll_voters("language") == {"anon:a": "go"}


@pytest.mark.parametrize(
    ("first_voter", "first_new", "resender", "resender_new"),
    [
        ("anon:a", True, "anon:b", False),  # another established voter: never handed someone else's id
        ("anon:a", True, "user:7", False),  # a signed-in user
        ("anon:a", False, "anon:new", True),  # the first answer set no cookie: there is none to hand out
        ("user:7", False, "anon:new", True),  # a signed-in user's identity is never handed out
    ],
)
def test_a_key_used_by_another_voter_is_refused_and_changes_nothing(
    memory_demo_store, published, first_voter, first_new, resender, resender_new
):
    services.vote_cast(
        poll_id="language", voter=first_voter, option="go", idempotency_key="k", new_voter=first_new
    )
    with pytest.raises(IdempotencyKeyInUse):
        services.vote_cast(
            poll_id="language", voter=resender, option="go", idempotency_key="k", new_voter=resender_new
        )
    with pytest.raises(IdempotencyKeyInUse):
        services.vote_retract(poll_id="language", voter=resender, idempotency_key="k", new_voter=resender_new)
    assert memory_demo_store.poll_voters("language") == {first_voter: "go"}
    assert memory_demo_store.get("language.go").value == 1


def test_a_key_whose_answer_was_never_saved_answers_from_the_current_totals(memory_demo_store, published):
    # The vote committed, then its process died before saving the answer.
    fingerprint = idempotency.fingerprint_of(action="vote", poll="language", option="go")
    memory_demo_store.cast_vote(
        "language", voter="v1", option="go", claim=idempotency.claim("click-1", fingerprint)
    )
    outcome = services.vote_cast(poll_id="language", voter="v1", option="go", idempotency_key="click-1")
    assert outcome.replayed is True
    assert (outcome.body["choice"], outcome.body["counted"], outcome.body["poll"]["total"]) == ("go", True, 1)


def test_a_key_released_between_the_race_and_the_replay_asks_for_a_resend(memory_demo_store, monkeypatch):
    services.vote_cast(poll_id="language", voter="v1", option="go", idempotency_key="click-1")

    def refused_for_the_key(*args, **kwargs):
        raise IdempotencyRace  # as a cancelled transaction says it: without the record

    monkeypatch.setattr(memory_demo_store, "cast_vote", refused_for_the_key)
    monkeypatch.setattr(memory_demo_store, "stored_reply", lambda *args, **kwargs: None)
    with pytest.raises(Conflict, match="send the request again"):
        services.vote_cast(poll_id="language", voter="v1", option="go", idempotency_key="click-1")


def test_votes_that_cannot_count_are_refused(memory_demo_store, published):
    services.poll_set_closed(poll_id="deploy", closed=True)
    with pytest.raises(PollClosed):
        services.vote_cast(poll_id="deploy", voter="v1", option="aws")
    with pytest.raises(InvalidInput):
        services.vote_cast(poll_id="language", voter="v1", option="cobol")
    with pytest.raises(InvalidInput):
        services.vote_cast(poll_id="language", voter="v1", option="Not an id")
    with pytest.raises(UnknownCounter):
        services.vote_cast(poll_id="ghost", voter="v1", option="go")
    assert published == []
