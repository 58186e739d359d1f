"""Multiple choice (each pick added or removed exactly once with its Idempotency-Key, at most k picks,
on DynamoDB Local) and the 1-5 rating (its distribution and average), through the vote API."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from counters import services


def pick(client: Client, poll: str, option: str, picked: bool = True, key: str | None = None):
    extra = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    body = json.dumps({"option": option, "picked": picked})
    return client.post(f"/api/polls/{poll}/vote", body, content_type="application/json", **extra)


def votes_of(answer) -> dict[str, int]:
    return {option["id"]: option["votes"] for option in answer.json()["poll"]["options"]}


@pytest.mark.django_db
def test_a_voter_picks_at_most_k_options_each_counted_once(demo_store):
    options = [("talks", "Talks"), ("food", "Food"), ("wifi", "Wi-Fi")]
    services.poll_create(
        poll_id="liked", question="What did you like?", options=options, kind="multi", max_picks=2
    )
    voter = Client()
    assert votes_of(pick(voter, "liked", "talks", key="k1")) == {"talks": 1, "food": 0, "wifi": 0}
    resent = pick(voter, "liked", "talks", key="k1")
    assert resent["Idempotent-Replayed"] == "true" and votes_of(resent)["talks"] == 1
    assert votes_of(pick(voter, "liked", "food", key="k2")) == {"talks": 1, "food": 1, "wifi": 0}
    refused = pick(voter, "liked", "wifi", key="k3")
    assert refused.status_code == 409 and "at most 2 picks" in refused.json()["detail"]
    removed = pick(voter, "liked", "talks", picked=False, key="k4")
    assert removed.json()["previous"] == "talks" and votes_of(removed) == {"talks": 0, "food": 1, "wifi": 0}
    assert votes_of(pick(voter, "liked", "wifi", key="k5")) == {"talks": 0, "food": 1, "wifi": 1}
    pick(Client(), "liked", "wifi")
    listed = Client().get("/api/polls/liked").json()
    assert listed["voters"] == 2 and listed["total"] == 3 and listed["max_picks"] == 2
    missing = Client().post(
        "/api/polls/liked/vote", json.dumps({"option": "food"}), content_type="application/json"
    )
    assert missing.status_code == 400


@pytest.mark.django_db
def test_a_rating_shows_its_distribution_and_average(memory_demo_store):
    poll = services.poll_create(poll_id="talk", question="Rate the talk", kind="rating")
    assert [option.id for option in poll.options] == ["1", "2", "3", "4", "5"]
    for stars in ("5", "4", "4"):
        Client().post("/api/polls/talk/vote", json.dumps({"option": stars}), content_type="application/json")
    shown = Client().get("/api/polls/talk").json()
    assert shown["kind"] == "rating" and shown["average"] == 4.33
    assert [option["votes"] for option in shown["options"]] == [0, 0, 0, 2, 1]


@pytest.mark.django_db
def test_the_dashboard_marks_every_pick_of_a_multiple_choice_card(memory_demo_store):
    options = [("talks", "Talks"), ("food", "Food"), ("wifi", "Wi-Fi")]
    services.poll_create(
        poll_id="liked", question="What did you like?", options=options, kind="multi", max_picks=2
    )
    voter = Client()
    voter.get("/")
    pick(voter, "liked", "talks")
    pick(voter, "liked", "wifi")
    html = voter.get("/").content.decode()
    card = html[html.index('data-poll="liked"') :].split("</article>")[0]
    assert 'data-kind="multi"' in card
    assert (
        '<li data-option="talks" class="chosen">' in card and '<li data-option="wifi" class="chosen">' in card
    )
    assert '<li data-option="food">' in card
