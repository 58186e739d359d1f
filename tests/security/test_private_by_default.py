"""Private by default: the voter cookie only where a vote can happen, and no client address kept.

Each answer is fetched by a first-time visitor (no cookies) through the whole Django stack: which
cookies an answer sets on the memory store, votes and their identity on DynamoDB Local; the rate
limit's windows are read back from the machine's Redis (and from a real site's, behind a proxy).
"""

from __future__ import annotations

import json
import logging

import pytest
import redis
from django.contrib.auth.models import AnonymousUser
from django.http import HttpResponse
from django.template import engines
from django.test import Client, RequestFactory, override_settings

from counters.demo import seed_demo
from counters.exceptions import RateLimited, StoreUnavailable
from counters.store.memory import MemoryCounterStore
from counters.web.http.ratelimit import address_key, check_vote_rate
from counters.web.http.voters import VoterMiddleware
from tests.support.processes import SiteProcess, site_environment
from tests.support.site import REDIS_URL, redis_site_env
from tests.support.voting import HttpVoter, poll_tally

VOTER = "counters_voter"
VOTE = "/api/polls/language/vote"
ADDRESS = "203.0.113.77"


def vote(client: Client, option: str = "python", **extra):
    """POST a JSON vote for `option` on the language poll."""
    return client.post(VOTE, data=json.dumps({"option": option}), content_type="application/json", **extra)


JSON = "application/json"
CSRF = "csrftoken"
NO_POLL = "/api/polls/nowhere/vote"
# The cookies each kind of answer sets for a first-time visitor, as docs/design.md ("Cookies") states.
SETS = [
    ("page with a poll", "get", "/", {}, 200, {VOTER, CSRF}),
    ("vote answer", "post", VOTE, {"data": '{"option": "go"}', "content_type": JSON}, 200, {VOTER}),
    ("withdrawal answer", "delete", VOTE, {}, 200, {VOTER}),
    ("page without a poll", "get", "/pages/docs/", {}, 200, {CSRF}),
    ("badge", "get", "/badge/docs.svg", {}, 200, set()),
    ("API counters", "get", "/api/counters", {}, 200, set()),
    ("API counter", "get", "/api/counters/docs", {}, 200, set()),
    ("API polls", "get", "/api/polls", {}, 200, set()),
    ("API voter's choice", "get", VOTE, {}, 200, set()),
    ("history CSV", "get", "/api/counters/docs/history.csv", {}, 200, set()),
    ("results CSV", "get", "/api/polls/language/results.csv", {}, 200, set()),
    ("beacon of a page", "post", "/api/views/docs", {}, 200, set()),
    ("404 page", "get", "/nowhere/", {}, 404, set()),
    ("404 JSON", "get", "/api/counters/nowhere", {}, 404, set()),
    ("400 badge", "get", "/badge/docs.svg?show=everything", {}, 400, set()),
    ("400 vote", "post", VOTE, {"data": "{not json", "content_type": JSON}, 400, set()),
    ("400 no option", "post", VOTE, {"data": "{}", "content_type": JSON}, 400, set()),
    ("404 vote", "post", NO_POLL, {"data": '{"option": "x"}', "content_type": JSON}, 404, set()),
    ("405 vote", "put", VOTE, {}, 405, set()),
    ("413 vote", "post", VOTE, {"data": "x" * 5000, "content_type": JSON}, 413, set()),
    ("refused beacon", "post", "/api/views/nowhere", {}, 404, set()),
]
CASES = [pytest.param(*row[1:], id=row[0]) for row in SETS]


@pytest.mark.django_db
@pytest.mark.parametrize(("method", "path", "options", "status", "cookies"), CASES)
def test_a_first_visitor_gets_the_documented_cookies(
    memory_demo_store, method, path, options, status, cookies
):
    response = getattr(Client(), method)(path, **options)

    assert response.status_code == status
    assert set(response.cookies) == cookies


@pytest.mark.django_db
def test_a_badge_sets_no_cookie_varies_on_none_and_answers_304_from_its_etag(memory_demo_store):
    client = Client()
    first = client.get("/badge/docs.svg")

    assert first.status_code == 200 and not first.cookies
    assert "cookie" not in first.get("Vary", "").lower()
    assert "no-cache" in first["Cache-Control"] and "private" not in first["Cache-Control"]
    again = client.get("/badge/docs.svg", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and not again.cookies
    assert "cookie" not in again.get("Vary", "").lower()


@pytest.mark.django_db
def test_a_refused_vote_sets_no_cookie(memory_demo_store):
    # 403: a browser-like client without the CSRF token.
    refused = vote(Client(enforce_csrf_checks=True))

    assert refused.status_code == 403 and VOTER not in refused.cookies


@pytest.mark.django_db
def test_a_vote_over_the_rate_sets_no_cookie(demo_store, settings):
    settings.COUNTERS_VOTE_RATE = "1/m"
    counted = vote(Client(), REMOTE_ADDR=ADDRESS)
    limited = vote(Client(), REMOTE_ADDR=ADDRESS)

    assert counted.status_code == 200 and VOTER in counted.cookies
    assert limited.status_code == 429 and VOTER not in limited.cookies


class DownStore(MemoryCounterStore):
    """A store whose votes meet an outage."""

    def cast_vote(self, poll_id: str, **kwargs):
        raise StoreUnavailable("The counter store cannot be reached.")


@pytest.mark.django_db
def test_a_vote_during_an_outage_sets_no_cookie(process_runtime):
    seed_demo(process_runtime.give("store", DownStore()))
    response = vote(Client())

    assert response.status_code == 503 and VOTER not in response.cookies


@pytest.mark.django_db
def test_the_dashboard_sets_the_voter_cookie_and_a_vote_keeps_that_voter(demo_store):
    tab = Client()
    page = tab.get("/")
    assert page.status_code == 200
    cookie = page.cookies[VOTER]
    assert cookie["httponly"] and cookie["samesite"] == "Lax" and int(cookie["max-age"]) == 365 * 24 * 3600

    # A second tab shares the browser's cookies: both tabs are one voter, so the vote moves.
    other_tab = Client()
    other_tab.cookies[VOTER] = cookie.value
    assert vote(tab, "python").status_code == 200
    moved = vote(other_tab, "go")
    assert moved.json()["previous"] == "python"
    assert VOTER not in moved.cookies  # a known voter is not set again
    assert poll_tally(demo_store, "language") == {"python": 0, "go": 1, "rust": 0, "typescript": 0}


@pytest.mark.django_db
def test_a_first_time_voter_gets_the_cookie_with_the_answer_and_stays_one_voter(demo_store):
    client = Client()
    first = vote(client, "python", HTTP_IDEMPOTENCY_KEY="click-1")
    assert first.status_code == 200 and first.json()["counted"] is True
    assert first.cookies[VOTER].value.startswith("anon:")

    resent = vote(client, "python", HTTP_IDEMPOTENCY_KEY="click-1")
    assert resent["Idempotent-Replayed"] == "true" and VOTER not in resent.cookies
    moved = vote(client, "rust")
    assert moved.json()["previous"] == "python"
    assert client.get(VOTE).json()["choice"] == "rust"
    withdrawn = client.delete(VOTE)
    assert withdrawn.json()["counted"] is True
    assert poll_tally(demo_store, "language") == {"python": 0, "go": 0, "rust": 0, "typescript": 0}


def poll_page(request):
    """A developer's page holding `{% poll %}`, answered through VoterMiddleware."""
    request.user = AnonymousUser()
    template = engines["django"].from_string('{% load counters %}{% poll "language" %}')

    def view(request):
        return HttpResponse(template.render({}, request))

    return VoterMiddleware(view)(request)


@pytest.mark.django_db
def test_a_page_with_the_poll_tag_sets_the_cookie_and_marks_the_choice(demo_store):
    first = poll_page(RequestFactory().get("/my-page/"))
    assert VOTER in first.cookies
    assert 'class="chosen"' not in first.content.decode()

    client = Client()
    client.cookies[VOTER] = first.cookies[VOTER].value
    vote(client, "go")
    again = RequestFactory().get("/my-page/")
    again.COOKIES[VOTER] = first.cookies[VOTER].value
    page = poll_page(again)
    assert VOTER not in page.cookies
    assert 'data-option="go" class="chosen"' in page.content.decode()


@pytest.fixture
def redis_cache(redis_prefix, settings) -> str:
    """The default cache (so the vote rate limit) in the machine's Redis under the test's own prefix."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": redis_prefix,
        }
    }
    settings.COUNTERS_VOTE_RATE = "2/m"
    return redis_prefix


@pytest.mark.django_db
def test_rate_limit_windows_in_redis_hold_no_address(demo_store, redis_cache, settings, caplog):
    settings.COUNTERS_PROXY_COUNT = 1
    caplog.set_level(logging.DEBUG)
    statuses = [
        vote(Client(), option, REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=ADDRESS).status_code
        for option in ("python", "go", "rust")
    ]

    assert statuses == [200, 200, 429]  # the window is shared by the address, so it is counted
    keys = prefixed_keys(redis_cache)
    assert keys, "the vote windows are in Redis"
    assert not [key for key in keys if ADDRESS in key or "127.0.0.1" in key]
    assert not [key for key in keys if ADDRESS.replace(".", "") in key.replace(".", "")]
    assert ADDRESS not in caplog.text


def prefixed_keys(prefix: str) -> list[str]:
    """Every key under `prefix` in the machine's Redis."""
    client = redis.Redis.from_url(REDIS_URL)
    try:
        return [key.decode() for key in client.scan_iter(f"{prefix}*")]
    finally:
        client.close()


@pytest.mark.processes
def test_a_site_behind_a_proxy_keeps_and_logs_no_address(demo_store, dynamodb_local, tmp_path, redis_prefix):
    env = redis_site_env(demo_store, dynamodb_local, tmp_path, redis_prefix)
    env.update(COUNTERS_PROXY_COUNT="1", COUNTERS_VOTE_RATE="2/m", COUNTERS_LOG_LEVEL="DEBUG")
    with SiteProcess(env=env, log_path=tmp_path / "site.log", quiet=True) as site:
        voter = HttpVoter(site.url)
        voter.session.headers["X-Forwarded-For"] = ADDRESS
        voter.visit()
        statuses = [voter.vote("language", option).status_code for option in ("python", "go", "rust")]
        keys = prefixed_keys(redis_prefix)

    assert statuses == [200, 200, 429]
    secret = site_environment()["DJANGO_SECRET_KEY"]
    with override_settings(SECRET_KEY=secret):
        hashed = address_key(ADDRESS)
    # The window is there, under the keyed hash of the address the proxy reported, and nothing names it.
    assert [key for key in keys if hashed in key]
    assert not [key for key in keys if ADDRESS in key]
    assert ADDRESS not in (tmp_path / "site.log").read_text()


def test_memory_windows_hold_no_address_and_keep_addresses_apart(rf, settings, process_runtime):
    settings.COUNTERS_VOTE_RATE = "1/m"
    settings.COUNTERS_VOTER_RATE = "0"
    check_vote_rate(rf.post(VOTE, REMOTE_ADDR=ADDRESS), "anon:one")
    check_vote_rate(rf.post(VOTE, REMOTE_ADDR="198.51.100.9"), "anon:one")
    with pytest.raises(RateLimited):
        check_vote_rate(rf.post(VOTE, REMOTE_ADDR=ADDRESS), "anon:two")

    windows = process_runtime.vote_limiter.local.storage.storage
    assert len(windows) == 2
    assert not [key for key in windows if ADDRESS in key or "198.51.100.9" in key]
