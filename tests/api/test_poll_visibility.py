"""Hidden poll totals never leave the server for the audience: not in the API, the page, the CSV, the
counters API or a badge; staff see them; the presenter's reveal and close show them."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from counters import services
from tests.support.admin_users import make_user

POLL = "secret"
VOTES = {"a": 2, "b": 1}


def audience() -> Client:
    """A browser after its first visit: cookies and CSRF token set."""
    client = Client(enforce_csrf_checks=True)
    client.get("/")
    client.defaults["HTTP_X_CSRFTOKEN"] = client.cookies["csrftoken"].value
    return client


def vote(client: Client, option: str):
    return client.post(
        f"/api/polls/{POLL}/vote", json.dumps({"option": option}), content_type="application/json"
    )


@pytest.fixture
def secret(memory_demo_store):
    """A poll whose totals show only when the presenter reveals them, with three votes in it."""
    services.poll_create(
        poll_id=POLL, question="Secret?", options=[("a", "A"), ("b", "B")], results="revealed"
    )
    for n, option in enumerate(["a", "a", "b"]):
        memory_demo_store.cast_vote(POLL, voter=f"anon:seed{n}", option=option)


@pytest.fixture
def staff(db) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("presenter", "view_poll", "change_poll"))
    client.get("/")
    client.defaults["HTTP_X_CSRFTOKEN"] = client.cookies["csrftoken"].value
    return client


def carries_totals(poll: dict) -> bool:
    """Whether a poll's JSON carries any number from which its totals could be read."""
    return "total" in poll or any({"votes", "version"} & set(option) for option in poll["options"])


def audience_channels(client: Client) -> dict:
    """What an audience member can fetch about the poll, by channel."""
    return {
        "list": next(p for p in client.get("/api/polls").json()["polls"] if p["id"] == POLL),
        "detail": client.get(f"/api/polls/{POLL}").json(),
        "overview": next(p for p in client.get("/api/overview").json()["poll_list"] if p["id"] == POLL),
        "vote_get": client.get(f"/api/polls/{POLL}/vote").json()["poll"],
        "csv": client.get(f"/api/polls/{POLL}/results.csv"),
        "counters": [c["name"] for c in client.get("/api/counters").json()["counters"]],
        "counter": client.get(f"/api/counters/{POLL}.a"),
        "badge": client.get(f"/badge/{POLL}.a.svg"),
        "html": client.get("/").content.decode(),
    }


def assert_hidden(seen: dict, *, voters: int = 3) -> None:
    for channel in ("list", "detail", "overview", "vote_get"):
        assert seen[channel]["results_visible"] is False and not carries_totals(seen[channel]), channel
        assert seen[channel]["voters"] == voters  # how many voted is public, how they voted is not
    assert seen["csv"].status_code == 403 and b"a,A" not in seen["csv"].content
    assert not [name for name in seen["counters"] if name.startswith(f"{POLL}.")]
    assert seen["counter"].status_code == 403 and seen["badge"].status_code == 403
    card = re.search(rf'<article[^>]*data-poll="{POLL}".*?</article>', seen["html"], re.S).group(0)
    assert "data-results-hidden" in card
    assert re.findall(r'data-value="(\d+)"', card) == ["0", "0", "0"]  # placeholders, never the totals
    assert re.findall(r'data-version="(-?\d+)"', card) == ["-1", "-1"]
    assert ">2<" not in card and ">1<" not in card and "67%" not in card


@pytest.mark.django_db
def test_hidden_totals_reach_no_audience_channel_even_after_voting(secret):
    client = audience()
    assert_hidden(audience_channels(client))
    answer = vote(client, "a")
    assert answer.status_code == 200 and answer.json()["choice"] == "a"
    assert not carries_totals(answer.json()["poll"])
    assert_hidden(audience_channels(client), voters=4)


@pytest.mark.django_db
def test_staff_see_hidden_totals_everywhere(secret, staff):
    detail = staff.get(f"/api/polls/{POLL}").json()
    assert detail["results_visible"] is True and {o["id"]: o["votes"] for o in detail["options"]} == VOTES
    assert staff.get(f"/api/polls/{POLL}/results.csv").content.decode().splitlines()[1:] == [
        "a,A,2,0.6667",
        "b,B,1,0.3333",
    ]
    assert staff.get(f"/api/counters/{POLL}.a").json()["value"] == 2
    assert 'data-value="2" data-counter="secret.a"' in staff.get("/").content.decode()


@pytest.mark.django_db
def test_the_presenters_reveal_shows_the_totals_and_hide_takes_them_back(secret, staff):
    client = audience()
    refused = client.post(
        f"/api/polls/{POLL}/control", json.dumps({"action": "reveal"}), content_type="application/json"
    )
    assert refused.status_code == 403
    revealed = staff.post(
        f"/api/polls/{POLL}/control", json.dumps({"action": "reveal"}), content_type="application/json"
    )
    assert revealed.status_code == 200 and revealed.json()["revealed"] is True
    assert revealed.json()["version"] == 1
    detail = client.get(f"/api/polls/{POLL}").json()
    assert detail["results_visible"] is True and {o["id"]: o["votes"] for o in detail["options"]} == VOTES
    assert client.get(f"/api/polls/{POLL}/results.csv").status_code == 200
    again = staff.post(
        f"/api/polls/{POLL}/control", json.dumps({"action": "reveal"}), content_type="application/json"
    )
    assert again.status_code == 409 and again.json()["error"] == "conflict"
    staff.post(f"/api/polls/{POLL}/control", json.dumps({"action": "hide"}), content_type="application/json")
    assert_hidden(audience_channels(client))


@pytest.mark.django_db
def test_a_poll_shown_after_voting_shows_its_totals_to_its_voters_only(memory_demo_store):
    services.poll_create(poll_id=POLL, question="Secret?", options=[("a", "A"), ("b", "B")], results="voted")
    voter, other = audience(), audience()
    answer = vote(voter, "b").json()["poll"]
    assert answer["results_visible"] is True and {o["id"]: o["votes"] for o in answer["options"]} == {
        "a": 0,
        "b": 1,
    }
    assert voter.get(f"/api/polls/{POLL}").json()["results_visible"] is True
    assert not carries_totals(other.get(f"/api/polls/{POLL}").json())
    assert other.get(f"/api/polls/{POLL}/results.csv").status_code == 403


@pytest.mark.django_db
def test_a_poll_shown_once_closed_shows_its_totals_when_staff_close_it(secret, staff):
    services.poll_create(
        poll_id="later", question="Later?", options=[("a", "A"), ("b", "B")], results="closed"
    )
    client = audience()
    assert not carries_totals(client.get("/api/polls/later").json())
    closed = staff.post(
        "/api/polls/later/control", json.dumps({"action": "close"}), content_type="application/json"
    )
    assert closed.json()["closed"] is True
    assert client.get("/api/polls/later").json()["results_visible"] is True


@pytest.mark.django_db
def test_a_poll_for_signed_in_users_refuses_anonymous_votes(memory_demo_store, staff):
    services.poll_create(
        poll_id="members", question="Members?", options=[("a", "A"), ("b", "B")], audience="users"
    )
    refused = audience().post(
        "/api/polls/members/vote", json.dumps({"option": "a"}), content_type="application/json"
    )
    assert refused.status_code == 403 and refused.json()["error"] == "not_allowed"
    taken = staff.post(
        "/api/polls/members/vote", json.dumps({"option": "a"}), content_type="application/json"
    )
    assert taken.status_code == 200 and taken.json()["choice"] == "a"


@pytest.mark.django_db
def test_template_tags_show_a_dash_for_a_hidden_option(secret, rf):
    from django.template import Context, Template

    page = Template('{% load counters %}[{% counter_value "secret.a" %}][{% live_counter "secret.a" %}]')
    html = page.render(Context({}))
    assert "[–]" in html and 'data-version="-1"' in html and ">2<" not in html
    services.poll_control(poll_id=POLL, action="reveal")
    assert "[2]" in page.render(Context({}))
