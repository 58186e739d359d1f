"""The site beacon (`POST /api/hit`): allowed origins only, CORS, bad input refused, rate-limited, capped."""

from __future__ import annotations

import asyncio
import json
import random
import string

import pytest

from counters.domain.page_rules import page_name
from counters.web.asgi.site_beacon import SiteBeacon

DOCS = "http://docs.example.com:8123"
SITE_HOST = "counters.example.com"


async def inner(scope, receive, send):
    """The rest of the site: every request that is not the beacon comes here."""
    await send({"type": "http.response.start", "status": 299, "headers": []})
    await send({"type": "http.response.body", "body": b"site"})


@pytest.fixture
def beacon(settings, memory_store):
    settings.COUNTERS_SITE_ORIGINS = [DOCS]
    return SiteBeacon(inner, threads=4)


async def call(app, *, method="POST", body=b"", origin=DOCS, path="/api/hit", content_type=b"text/plain"):
    """One request through the ASGI app: (status, headers, body)."""
    headers = [
        (b"host", SITE_HOST.encode()),
        (b"content-type", content_type),
        (b"user-agent", b"Mozilla/5.0"),
    ]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    scope = {"type": "http", "method": method, "path": path, "headers": headers, "client": ("10.0.0.1", 5)}
    sent, messages = [], [{"type": "http.request", "body": body, "more_body": False}]

    async def receive():
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    return sent[0]["status"], dict(sent[0]["headers"]), sent[1]["body"]


def hit(path="/guide/", **fields) -> bytes:
    return json.dumps({"path": path, "title": "Guide", **fields}).encode()


async def test_an_allowed_origin_counts_a_page_it_creates(beacon, memory_store):
    status, headers, _ = await call(beacon, body=hit(referrer="https://news.example.net/a"))
    assert status == 204
    assert headers[b"access-control-allow-origin"] == DOCS.encode()
    state = memory_store.get(page_name("/guide", host="docs.example.com:8123"))
    assert (state.value, state.title, state.description) == (1, "Guide", "docs.example.com:8123/guide")
    await call(beacon, body=hit("/guide/?utm_source=x"))
    assert memory_store.get(state.name).value == 2


async def test_other_requests_go_to_the_site(beacon):
    assert (await call(beacon, path="/api/counters", method="GET"))[0] == 299


async def test_preflight_answers_allowed_origins_only(beacon):
    status, headers, _ = await call(beacon, method="OPTIONS")
    assert status == 204
    assert headers[b"access-control-allow-methods"] == b"POST"
    assert headers[b"access-control-allow-headers"] == b"content-type"
    status, headers, body = await call(beacon, method="OPTIONS", origin="https://evil.example")
    assert status == 403 and b"access-control-allow-origin" not in headers
    assert json.loads(body)["error"] == "origin_not_allowed"


@pytest.mark.parametrize("origin", ["https://evil.example", "null", None, "http://docs.example.com:9999"])
async def test_other_origins_are_refused_and_change_nothing(beacon, memory_store, origin):
    status, headers, body = await call(beacon, body=hit(), origin=origin)
    assert status == 403 and b"access-control-allow-origin" not in headers
    assert "may not count views here" in json.loads(body)["detail"]
    assert memory_store.counter_names() == []


async def test_the_sites_own_origin_counts_its_path_as_the_middleware_does(beacon, memory_store):
    assert (await call(beacon, body=hit("/about/"), origin=f"https://{SITE_HOST}"))[0] == 204
    assert memory_store.get(page_name("/about")).value == 1


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (hit("/" + "a" * 600), 400, "invalid"),
        (hit("/a\u0001b"), 400, "invalid"),
        (hit(referrer="not a url"), 400, "invalid"),
        (hit(referrer="javascript:alert(1)"), 400, "invalid"),
        (hit(utm_source="<script>"), 400, "invalid"),
        (b"{not json", 400, "invalid"),
        (b'{"path": "/a", "path": "/b"}', 400, "invalid"),
        (b'["/a"]', 400, "invalid"),
        (b'{"path": 3}', 400, "invalid"),
        (b'{"path": "/a", "extra": "x"}', 400, "invalid"),
        (b"x" * 9000, 413, "too_large"),
    ],
)
async def test_bad_input_is_a_clear_refusal_and_changes_nothing(beacon, memory_store, body, status, code):
    answered, _, payload = await call(beacon, body=body)
    assert answered == status
    assert json.loads(payload)["error"] == code and json.loads(payload)["detail"]
    assert memory_store.counter_names() == []


async def test_other_methods_and_body_types_are_refused(beacon):
    assert (await call(beacon, method="GET"))[0] == 405
    assert (await call(beacon, body=hit(), content_type=b"application/x-www-form-urlencoded"))[0] == 400


async def test_the_rate_limit_holds(beacon, settings, memory_store):
    settings.COUNTERS_BEACON_RATE = "3/m"
    answers = [(await call(beacon, body=hit()))[0] for _ in range(5)]
    assert answers == [204, 204, 204, 429, 429]
    assert memory_store.get(page_name("/guide", host="docs.example.com:8123")).value == 3


async def test_ten_thousand_random_paths_create_no_more_pages_than_the_cap(beacon, settings, memory_store):
    settings.COUNTERS_SITE_MAX_PAGES = 25
    settings.COUNTERS_BEACON_RATE = "0"
    rng = random.Random(25)
    paths = {
        "/" + "".join(rng.choices(string.ascii_letters + string.digits + "/-_.", k=24)) for _ in range(10_000)
    }
    statuses: list[int] = []
    paths = sorted(paths)
    for start in range(0, len(paths), 200):
        batch = [call(beacon, body=hit(path)) for path in paths[start : start + 200]]
        statuses += [answer[0] for answer in await asyncio.gather(*batch)]
    assert len(memory_store.counter_names()) == 25
    assert statuses.count(204) >= 25 and set(statuses) <= {204, 409}
    assert memory_store.page_budget().created == 25
    assert memory_store.page_budget().refused == statuses.count(409)


async def test_concurrent_beacons_are_exact_and_share_writes_in_dynamodb_local(settings, store):
    settings.COUNTERS_SITE_ORIGINS = [DOCS]
    settings.COUNTERS_BEACON_RATE = "0"
    beacon = SiteBeacon(inner, threads=8)
    assert (await call(beacon, body=hit()))[0] == 204  # creates the page; its visitor is known from now on
    answers = await asyncio.gather(*(call(beacon, body=hit()) for _ in range(300)))
    assert [status for status, _, _ in answers] == [204] * 300
    state = store.get(page_name("/guide", host="docs.example.com:8123"))
    assert state.value == 301
    assert state.version < 150, "beacons that met rode on one write"
