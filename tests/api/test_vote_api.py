"""The vote API through Django's test client against DynamoDB Local: contract, errors, idempotency."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from django.test import Client, RequestFactory

from counters.web.http.voters import COOKIE_SALT
from tests.support.live import RecordingBroadcaster
from tests.support.voting import assert_poll_consistent, poll_tally

URL = "/api/polls/language/vote"


@pytest.fixture
def voter(demo_store) -> Client:
    """A browser-like client with CSRF checks on, after its first visit to the dashboard."""
    client = Client(enforce_csrf_checks=True)
    client.get("/")
    client.defaults["HTTP_X_CSRFTOKEN"] = client.cookies["csrftoken"].value
    return client


def post(client: Client, body, *, key=None, url=URL, content_type="application/json", **extra):
    if key:
        extra["HTTP_IDEMPOTENCY_KEY"] = key
    data = json.dumps(body) if content_type == "application/json" and not isinstance(body, str) else body
    return client.post(url, data=data, content_type=content_type, **extra)


@pytest.mark.django_db
def test_first_visit_sets_a_signed_voter_cookie(voter):
    assert voter.cookies["counters_voter"].value.startswith("anon:")
    assert ":" in voter.cookies["counters_voter"].value.removeprefix("anon:")  # signed
    assert voter.get(URL).json()["choice"] is None


@pytest.mark.django_db
def test_vote_move_same_again_and_retract(voter, demo_store):
    first = post(voter, {"option": "python"})
    assert first.status_code == 200
    body = first.json()
    assert (body["choice"], body["previous"], body["counted"]) == ("python", None, True)
    assert {o["id"]: o["votes"] for o in body["poll"]["options"]}["python"] == 1
    assert body["poll"]["total"] == 1
    same = post(voter, {"option": "python"}).json()
    assert same["counted"] is False and same["poll"]["total"] == 1
    moved = post(voter, "option=go", content_type="application/x-www-form-urlencoded").json()
    assert (moved["choice"], moved["previous"], moved["counted"]) == ("go", "python", True)
    assert voter.get(URL).json()["choice"] == "go"
    gone = voter.delete(URL)
    assert gone.status_code == 200 and gone.json()["counted"] is True and gone.json()["choice"] is None
    assert poll_tally(demo_store, "language") == {"python": 0, "go": 0, "rust": 0, "typescript": 0}


@pytest.mark.django_db
def test_a_forged_voter_cookie_is_replaced(demo_store):
    client = Client()
    client.cookies["counters_voter"] = "anon:someone-else"
    post(client, {"option": "rust"})
    assert client.cookies["counters_voter"].value != "anon:someone-else"
    assert "anon:someone-else" not in demo_store.poll_voters("language")


@pytest.mark.django_db
def test_logged_in_user_votes_as_user(demo_store, django_user_model):
    user = django_user_model.objects.create_user("ada", password="pw")
    client = Client()
    client.force_login(user)
    post(client, {"option": "rust"})
    assert demo_store.poll_voters("language") == {f"user:{user.pk}": "rust"}


@pytest.mark.django_db
def test_same_key_ten_times_counts_once_and_other_body_is_409(voter, demo_store):
    answers = [post(voter, {"option": "python"}, key="click-1") for _ in range(10)]
    assert {a.status_code for a in answers} == {200}
    assert len({a.content for a in answers}) == 1  # every replay is the first answer, byte for byte
    assert [a.headers.get("Idempotent-Replayed") for a in answers] == [None] + ["true"] * 9
    assert demo_store.get("language.python").version == 1
    other = post(voter, {"option": "go"}, key="click-1")
    assert other.status_code == 409 and other.json()["error"] == "idempotency_key_reused"
    assert voter.delete(URL, HTTP_IDEMPOTENCY_KEY="click-1").status_code == 409
    assert poll_tally(demo_store, "language") == {"python": 1, "go": 0, "rust": 0, "typescript": 0}


def voter_cookie(response) -> str | None:
    """The voter an answer's Set-Cookie makes its client (unsigned), or None if it sets none."""
    morsel = response.cookies.get("counters_voter")
    if morsel is None:
        return None
    reader = RequestFactory().get("/")
    reader.COOKIES["counters_voter"] = morsel.value
    return reader.get_signed_cookie("counters_voter", salt=COOKIE_SALT)


@pytest.mark.django_db
def test_a_cookieless_resend_counts_once_and_becomes_the_first_voter(demo_store):
    answers = [post(Client(), {"option": "rust"}, key="lost-1") for _ in range(3)]  # no cookie each time
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert [a.headers.get("Idempotent-Replayed") for a in answers] == [None, "true", "true"]
    assert len({a.content for a in answers}) == 1
    first_voter = voter_cookie(answers[0])
    assert first_voter.startswith("anon:")
    # Each replay sets the cookie the first answer set: the client becomes the voter its vote counted for.
    assert [voter_cookie(a) for a in answers[1:]] == [first_voter, first_voter]
    assert poll_tally(demo_store, "language") == {"python": 0, "go": 0, "rust": 1, "typescript": 0}
    assert demo_store.poll_voters("language") == {first_voter: "rust"}
    later = Client()
    later.cookies["counters_voter"] = answers[2].cookies["counters_voter"].value
    assert later.get(URL).json()["choice"] == "rust"
    # As that voter, the client moves its one vote.
    assert post(later, {"option": "go"}).json()["previous"] == "rust"
    assert poll_tally(demo_store, "language") == {"python": 0, "go": 1, "rust": 0, "typescript": 0}


@pytest.mark.django_db
def test_a_cookieless_resend_with_another_body_is_409_and_changes_nothing(demo_store):
    assert post(Client(), {"option": "rust"}, key="k").status_code == 200
    for other in (post(Client(), {"option": "go"}, key="k"), Client().delete(URL, HTTP_IDEMPOTENCY_KEY="k")):
        assert (other.status_code, other.json()["error"]) == (409, "idempotency_key_reused")
        assert set(other.json()) == {"error", "detail"} and voter_cookie(other) is None
    assert poll_tally(demo_store, "language") == {"python": 0, "go": 0, "rust": 1, "typescript": 0}
    assert len(demo_store.poll_voters("language")) == 1


@pytest.mark.django_db
def test_a_key_used_by_another_voter_is_refused_and_changes_nothing(voter, demo_store, django_user_model):
    assert post(Client(), {"option": "rust"}, key="theirs").status_code == 200
    # An established voter (a cookie of its own) is never handed another voter's identity.
    taken = post(voter, {"option": "rust"}, key="theirs")
    assert (taken.status_code, taken.json()["error"]) == (409, "idempotency_key_in_use")
    assert voter_cookie(taken) is None
    assert voter.delete(URL, HTTP_IDEMPOTENCY_KEY="theirs").json()["error"] == "idempotency_key_in_use"
    assert voter.get(URL).json()["choice"] is None
    # Nor is a signed-in user, and a user's key is never handed to a client without a cookie.
    user = Client()
    user.force_login(django_user_model.objects.create_user("ada", password="pw"))
    assert post(user, {"option": "rust"}, key="theirs").json()["error"] == "idempotency_key_in_use"
    assert post(user, {"option": "go"}, key="ada-1").status_code == 200
    refused = post(Client(), {"option": "go"}, key="ada-1")
    assert (refused.status_code, refused.json()["error"], voter_cookie(refused)) == (
        409,
        "idempotency_key_in_use",
        None,
    )
    # A key first sent with a cookie set no cookie in its answer: a resend without one gets none either.
    assert post(voter, {"option": "python"}, key="mine").status_code == 200
    assert post(Client(), {"option": "python"}, key="mine").json()["error"] == "idempotency_key_in_use"
    assert poll_tally(demo_store, "language") == {"python": 1, "go": 1, "rust": 1, "typescript": 0}
    assert len(demo_store.poll_voters("language")) == 3
    # The same voter's resend is still its replay.
    assert post(voter, {"option": "python"}, key="mine").headers["Idempotent-Replayed"] == "true"


@pytest.mark.django_db
def test_a_replay_answers_the_same_change_with_the_totals_of_its_time(voter, demo_store):
    first = post(voter, {"option": "rust"}, key="k").json()
    assert first["poll"]["total"] == 1
    assert post(Client(), {"option": "go"}).json()["counted"] is True  # someone else votes meanwhile
    again = post(voter, {"option": "rust"}, key="k")
    assert again.headers["Idempotent-Replayed"] == "true"
    assert (again.json()["counted"], again.json()["choice"], again.json()["previous"]) == (True, "rust", None)
    assert again.json()["poll"]["total"] == 2
    assert poll_tally(demo_store, "language")["rust"] == 1


BAD_REQUESTS = [
    ({"option": "cobol"}, "application/json", 400, "invalid"),
    ({"option": 7}, "application/json", 400, "invalid"),
    ({"choice": "python"}, "application/json", 400, "invalid"),
    (["python"], "application/json", 400, "invalid"),
    ("{not json", "application/json", 400, "invalid"),
    ("option=python", "text/plain", 415, "unsupported_media_type"),
    ({"option": "python", "pad": "x" * 2000}, "application/json", 413, "too_large"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("body", "content_type", "status", "code"), BAD_REQUESTS)
def test_bad_bodies_answer_json_and_write_nothing(voter, demo_store, body, content_type, status, code):
    response = post(voter, body, content_type=content_type)
    assert (response.status_code, response.json()["error"]) == (status, code)
    assert set(response.json()) == {"error", "detail"}
    assert poll_tally(demo_store, "language") == {"python": 0, "go": 0, "rust": 0, "typescript": 0}
    assert demo_store.poll_voters("language") == {}


@pytest.mark.django_db
def test_unknown_poll_closed_poll_bad_key_and_csrf(voter, demo_store):
    assert post(voter, {"option": "python"}, url="/api/polls/nope/vote").status_code == 404
    assert post(voter, {"option": "python"}, url="/api/polls/BAD!/vote").status_code == 400
    assert post(voter, {"option": "python"}, key="x" * 256).json()["error"] == "too_large"
    assert post(voter, {"option": "python"}, key="has space").status_code == 400
    demo_store.set_poll_closed("language", closed=True)
    closed = post(voter, {"option": "python"})
    assert (closed.status_code, closed.json()["error"]) == (409, "poll_closed")
    assert voter.delete(URL).json()["error"] == "poll_closed"
    no_token = Client(enforce_csrf_checks=True)
    no_token.get("/")
    refused = post(no_token, {"option": "python"}, url="/api/polls/deploy/vote")
    assert (refused.status_code, refused.json()["error"]) == (403, "csrf_failed")
    assert voter.put(URL).status_code == 405
    assert assert_poll_consistent(demo_store, "language") == {}
    assert assert_poll_consistent(demo_store, "deploy") == {}


@pytest.mark.django_db
def test_an_unknown_option_spends_none_of_the_voters_allowance(voter, demo_store, settings):
    settings.COUNTERS_VOTE_RATE = "0"
    settings.COUNTERS_VOTER_RATE = "2/m"
    refused = [post(voter, {"option": "cobol"}, key=f"k{n}") for n in range(4)]
    assert {(a.status_code, a.json()["error"]) for a in refused} == {(400, "invalid")}
    answers = [post(voter, {"option": option}) for option in ("python", "go", "rust")]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert poll_tally(demo_store, "language") == {"python": 0, "go": 1, "rust": 0, "typescript": 0}


@pytest.mark.django_db
def test_rate_limit_per_ip_answers_429_with_retry_after(voter, demo_store, settings):
    settings.COUNTERS_VOTE_RATE = "3/m"
    # An option the poll lacks, or a poll that does not exist, is refused before spending any allowance.
    refused = [post(voter, {"option": "python"}, url="/api/polls/deploy/vote") for _ in range(5)]
    refused.append(post(voter, {"option": "python"}, url="/api/polls/nope/vote"))
    assert [(a.status_code, a.json()["error"]) for a in refused] == [(400, "invalid")] * 5 + [
        (404, "not_found")
    ]
    answers = [post(voter, {"option": option}) for option in ("python", "go", "rust", "python", "go")]
    # The 4th and 5th vote of the minute are refused.
    assert [a.status_code for a in answers] == [200, 200, 200, 429, 429]
    limited = answers[-1]
    assert limited.json()["error"] == "rate_limited" and 1 <= int(limited["Retry-After"]) <= 60
    assert poll_tally(demo_store, "language") == {"python": 0, "go": 0, "rust": 1, "typescript": 0}
    # Another address has its own allowance; X-Forwarded-For is the client's word unless proxies are set.
    spoofed = post(voter, {"option": "rust"}, HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert spoofed.status_code == 429
    assert post(voter, {"option": "rust"}, REMOTE_ADDR="10.0.0.2").status_code == 200
    settings.COUNTERS_PROXY_COUNT = 1
    assert post(voter, {"option": "go"}, HTTP_X_FORWARDED_FOR="10.9.9.9").status_code == 200
    settings.COUNTERS_PROXY_COUNT = 0
    settings.COUNTERS_VOTE_RATE = "0"
    assert post(voter, {"option": "python"}).status_code == 200


@pytest.mark.django_db
def test_dashboard_marks_the_voters_choice(voter):
    post(voter, {"option": "go"})
    html = voter.get("/").content.decode()
    assert re.search(
        r'<li data-option="go" class="chosen">\s*<button type="button" class="vote" data-vote="go"', html
    )
    assert 'data-vote="go" aria-pressed="true"' in html
    assert 'data-vote="python" aria-pressed="false"' in html
    assert 'data-poll="language" data-vote-url="/api/polls/language/vote"' in html
    assert "counters/votes.js" in html and "onclick" not in html and "<script>" not in html


@pytest.mark.django_db
def test_poll_tag_puts_a_poll_on_any_page(demo_store, rf):
    from django.contrib.auth.models import AnonymousUser
    from django.http import HttpResponse
    from django.template import Context, Template

    from counters.web.http.voters import COOKIE_SALT

    demo_store.cast_vote("deploy", voter="anon:tagged", option="paas")
    request = rf.get("/anywhere/")
    request.user = AnonymousUser()
    signed = HttpResponse()
    signed.set_signed_cookie("counters_voter", "anon:tagged", salt=COOKIE_SALT)
    request.COOKIES["counters_voter"] = signed.cookies["counters_voter"].value
    html = Template('{% load counters %}{% poll "deploy" %}{% poll_script %}').render(
        Context({"request": request})
    )
    assert 'data-poll="deploy"' in html and 'data-csrf="' in html
    assert '<li data-option="paas" class="chosen">' in html
    assert 'data-counter="deploy.paas" data-version="1">1<' in html
    assert '<script src="/static/counters/votes.js" defer></script>' in html


@pytest.mark.django_db
def test_every_change_is_published_with_the_moved_totals(voter, process_runtime):
    published = process_runtime.give("broadcaster", RecordingBroadcaster()).batches
    post(voter, {"option": "python"})
    post(voter, {"option": "python"})  # no change: nothing to push
    post(voter, {"option": "go"})
    voter.delete(URL)
    shown = [{(s.name, s.value) for s in states} for states in published]
    assert shown == [
        {("language.python", 1)},
        {("language.python", 0), ("language.go", 1)},
        {("language.go", 0)},
    ]
    assert all(s.version > 0 and s.kind == "votes" for states in published for s in states)


@pytest.mark.django_db
def test_rate_limit_is_shared_through_redis(voter, demo_store, settings):

    import redis

    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:6379/0",
            "KEY_PREFIX": f"test-votes-{uuid.uuid4().hex}",
        }
    }
    settings.COUNTERS_VOTE_RATE = "2/h"
    answers = [post(voter, {"option": option}) for option in ("python", "go", "rust")]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert 1 <= int(answers[-1]["Retry-After"]) <= 3600
    keys = redis.Redis.from_url("redis://127.0.0.1:6379/0").keys(
        f"{settings.CACHES['default']['KEY_PREFIX']}*"
    )
    # One window for this address and one for this voter, kept in Redis.
    assert sorted(key.split(b"/")[1] for key in keys) == [b"counters-vote", b"counters-voter"]
    redis.Redis.from_url("redis://127.0.0.1:6379/0").delete(*keys)


@pytest.mark.django_db
def test_votes_count_while_the_shared_cache_is_down_and_the_limit_holds_per_process(
    voter, demo_store, settings
):
    from tests.support.processes import free_port

    settings.CACHES = {
        # Nothing listens on this port: every Redis call fails as in an outage.
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
        },
        "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": uuid.uuid4().hex},
    }
    settings.COUNTERS_VOTE_RATE = "2/h"
    answers = [post(voter, {"option": option}) for option in ("python", "go", "rust")]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert poll_tally(demo_store, "language") == {"python": 0, "go": 1, "rust": 0, "typescript": 0}
