"""/healthz, /readyz and /metrics answer as docs/operations.md says; none counts a view or sets a cookie."""

from __future__ import annotations

import json
import time

import pytest
from django.test import Client

from counters.domain.names import DASHBOARD_COUNTER
from tests.support.metrics import AUTHORIZATION, TOKEN, sample, sample_names
from tests.support.processes import free_port, occupy_port
from tests.support.redis_server import RedisServer
from tests.support.stores import store_at_nothing

PROBES = ("/healthz", "/readyz")


@pytest.fixture
def browser() -> Client:
    return Client()


def scrape(browser: Client) -> str:
    """The metrics text, fetched with the token."""
    response = browser.get("/metrics", HTTP_AUTHORIZATION=AUTHORIZATION)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()


def totals(store) -> dict[str, int]:
    return {state.name: state.value for state in store.list_counters()}


@pytest.fixture
def store_down(settings, monkeypatch):
    """The DynamoDB store, pointed at a port where nothing listens (with credentials, so it tries)."""
    store_at_nothing(settings, monkeypatch)


def redis_everywhere(settings, url: str) -> None:
    """Channel layer and cache on the Redis at `url`, as the demo site sets them up with REDIS_URL."""
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [url]}}
    }
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}}


def test_healthz_answers_ok_without_touching_the_store(browser, store_down):
    response = browser.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_is_ready_when_the_store_answers(browser, memory_demo_store):
    response = browser.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready"}


def test_readyz_names_a_store_that_cannot_be_reached(browser, store_down, settings):
    settings.COUNTERS_READY_TIMEOUT = 1.0
    began = time.monotonic()
    response = browser.get("/readyz")
    assert time.monotonic() - began < 5  # the deadline is 1 s; room for a loaded machine
    assert response.status_code == 503
    body = response.json()
    assert set(body) == {"error", "detail"}
    assert body["error"] == "not_ready"
    # Refused at once, or still retrying at the deadline: either way the store is named, Redis is not.
    assert body["detail"].startswith("Not ready: store (") and "redis" not in body["detail"]
    assert "127.0.0.1" not in body["detail"]  # /readyz is public: no addresses
    assert response["Retry-After"]


def test_readyz_gives_up_on_a_hung_store_at_its_deadline(browser, store_down, settings):
    port = free_port()
    settings.DYNAMODB_ENDPOINT_URL = f"http://127.0.0.1:{port}"
    settings.COUNTERS_READY_TIMEOUT = 0.5
    settings.COUNTERS_DYNAMODB_READ_TIMEOUT = 10  # left alone, the store's answer would take 10 s or more
    with occupy_port(port):  # takes the connection, never answers
        began = time.monotonic()
        response = browser.get("/readyz")
        took = time.monotonic() - began
    assert response.status_code == 503
    assert response.json()["detail"] == "Not ready: store (no answer within 0.5 s)."
    assert took < 5  # the deadline cut it short (with room for a loaded machine)


@pytest.mark.processes
def test_readyz_names_redis_while_it_is_down_and_recovers_when_it_is_back(
    browser, memory_demo_store, settings, tmp_path
):
    redis_server = RedisServer(tmp_path / "redis.log")
    with redis_server:
        redis_everywhere(settings, redis_server.url)
        assert browser.get("/readyz").status_code == 200
        redis_server.kill()
        response = browser.get("/readyz")
        assert response.status_code == 503
        assert response.json()["error"] == "not_ready"
        assert "redis" in response.json()["detail"] and "store" not in response.json()["detail"]
        redis_server.start()
        assert browser.get("/readyz").status_code == 200
    scraped = Client().get("/metrics", HTTP_AUTHORIZATION=AUTHORIZATION)
    assert scraped.status_code == 404  # no token set in this test: metrics are off


@pytest.mark.django_db
def test_probes_never_count_a_view_nor_set_a_cookie(browser, memory_demo_store, settings):
    settings.COUNTERS_METRICS_TOKEN = TOKEN
    before = totals(memory_demo_store)
    for path in (*PROBES, "/metrics"):
        for _ in range(3):
            response = browser.get(path, HTTP_AUTHORIZATION=AUTHORIZATION)
            assert response.status_code == 200, path
            assert not response.cookies, path
            assert "no-cache" in response["Cache-Control"], path
    assert totals(memory_demo_store) == before
    assert sample(scrape(browser), "counters_views_counted_total") == 0


@pytest.mark.parametrize("path", PROBES)
def test_probes_take_only_get_and_head(browser, memory_demo_store, path):
    assert browser.head(path).status_code == 200
    response = browser.post(path)
    assert response.status_code == 405


def test_metrics_are_off_without_a_token(browser, memory_demo_store, settings):
    settings.COUNTERS_METRICS_TOKEN = ""
    response = browser.get("/metrics", HTTP_AUTHORIZATION="Bearer ")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


@pytest.mark.parametrize("authorization", [None, "Bearer wrong", f"Basic {TOKEN}", TOKEN, f"Bearer {TOKEN}x"])
def test_metrics_refuse_a_scrape_without_the_token(browser, memory_demo_store, settings, authorization):
    settings.COUNTERS_METRICS_TOKEN = TOKEN
    extra = {} if authorization is None else {"HTTP_AUTHORIZATION": authorization}
    response = browser.get("/metrics", **extra)
    assert response.status_code == 403
    assert response.json()["error"] == "forbidden"
    assert "counters_" not in response.content.decode()
    assert response["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.django_db
def test_metrics_count_views_votes_and_answers(browser, memory_demo_store, settings):
    settings.COUNTERS_METRICS_TOKEN = TOKEN
    for _ in range(3):
        assert browser.post("/api/views/welcome").status_code == 200
    assert browser.post("/api/views/no-such-page").status_code == 404
    browser.get("/")  # the dashboard counts its own view, and is the page votes start from
    vote = {"option": "python"}
    url = "/api/polls/language/vote"
    assert browser.post(url, json.dumps(vote), content_type="application/json").json()["counted"] is True
    assert browser.post(url, json.dumps(vote), content_type="application/json").json()["counted"] is False
    assert browser.delete(url).json()["counted"] is True
    go = json.dumps({"option": "go"})
    for _ in range(2):  # the same key twice: the second is answered from the first
        browser.post(url, go, content_type="application/json", HTTP_IDEMPOTENCY_KEY="k" * 16)
    assert Client(enforce_csrf_checks=True).post("/api/views/welcome").status_code == 403
    text = scrape(browser)
    assert sample(text, "counters_views_counted_total") == 4
    assert totals(memory_demo_store)["welcome"] == 3 and totals(memory_demo_store)[DASHBOARD_COUNTER] == 1
    assert sample(text, "counters_votes_total", action="vote", result="counted") == 2
    assert sample(text, "counters_votes_total", action="vote", result="unchanged") == 1
    assert sample(text, "counters_votes_total", action="retract", result="counted") == 1
    assert sample(text, "counters_votes_total", action="vote", result="replayed") == 1
    assert sample(text, "counters_http_responses_total", view="counters:api-view", status="200") == 3
    assert sample(text, "counters_http_responses_total", view="counters:api-view", status="404") == 1
    # The CSRF middleware's refusal is counted too: the request metrics come first.
    assert sample(text, "counters_http_responses_total", view="counters:api-view", status="403") == 1
    assert sample(text, "counters_http_request_seconds_count", view="counters:api-view") == 5
    assert "counters_live_sockets" in sample_names(text)
