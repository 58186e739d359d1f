"""The site beacon: `POST /api/hit` from pages on allowed origins (site.js), answered before Django.

Pages outside Django (a static docs site, a blog, a single-page app) send `{"path", "title",
"referrer", "utm_source"}` with `navigator.sendBeacon`. This ASGI middleware answers that one path
itself and hands every other request to the site: a beacon needs no session, user, CSRF token,
template or URL resolver, so it skips them all (`python -m bench servers` measures what that saves).
What it does: refuse any origin not in COUNTERS_SITE_ORIGINS (or the site's own) with a 403 before
reading the body, answer CORS preflights, then in a worker thread apply the per-address rate limit,
validate the body (400 for a bad path, title or referrer) and count the view as any view is counted
(group-committed, acknowledged before the answer). Why the origin is the guard, and no CSRF token:
docs/whole-site.md.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from counters import conf
from counters.domain.addresses import trusted_address
from counters.domain.page_rules import clean_title
from counters.domain.sources import source_of
from counters.domain.visitors import Client
from counters.exceptions import CounterError, InvalidInput, TooLarge
from counters.services.site_pages import site_pages, site_view_record
from counters.web.errors import answer_for
from counters.web.ratelimit import check_rate
from counters.web.strict_json import loads_strict

BEACON_PATH = "/api/hit"
MAX_BODY_BYTES = 8 * 1024
RATE_SCOPE = "counters-beacon"
# What sendBeacon sends for a string body (text/plain) and what a fetch with a JSON body says it is.
BODY_TYPES = frozenset({"", "text/plain", "application/json"})
FIELDS = frozenset({"path", "title", "referrer", "utm_source"})
PREFLIGHT_HEADERS = [
    (b"access-control-allow-methods", b"POST"),
    (b"access-control-allow-headers", b"content-type"),
    (b"access-control-max-age", b"86400"),
]
Headers = list[tuple[bytes, bytes]]


class SiteBeacon:
    """ASGI middleware answering the site beacon at BEACON_PATH; every other request goes to `app`."""

    def __init__(self, app: Any, *, path: str = BEACON_PATH, threads: int | None = None) -> None:
        self.app = app
        self.path = path
        # The count waits on the store (boto3 is blocking): in a thread, as many as the store has connections.
        self.threads = ThreadPoolExecutor(threads or conf.dynamodb_max_pool(), thread_name_prefix="beacon")

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != self.path:
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        origin = headers.get(b"origin", b"").decode("latin-1")
        allowed = origin_allowed(origin, host=headers.get(b"host", b"").decode("latin-1"))
        cors = [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")]
        if scope["method"] not in ("POST", "OPTIONS"):
            return await answer(
                send, 405, error("method_not_allowed", "Send POST."), [(b"allow", b"POST, OPTIONS")]
            )
        if not allowed:
            return await answer(send, 403, refusal(origin), [(b"vary", b"Origin")])
        if scope["method"] == "OPTIONS":
            return await answer(send, 204, None, cors + PREFLIGHT_HEADERS)
        body = await read_body(receive)
        loop = asyncio.get_running_loop()
        status, payload = await loop.run_in_executor(self.threads, count_beacon, scope, headers, origin, body)
        return await answer(send, status, payload, cors)


def origin_allowed(origin: str, *, host: str) -> bool:
    """An origin in COUNTERS_SITE_ORIGINS, or the site's own (the request's Host); never a missing one."""
    if not origin or origin == "null":
        return False
    if origin.lower().rstrip("/") in {allowed.lower().rstrip("/") for allowed in conf.site_origins()}:
        return True
    return bool(host) and urlsplit(origin).netloc.lower() == host.lower()


def refusal(origin: str) -> bytes:
    """The 403 of an origin that may not send the beacon."""
    shown = origin[:200] or "(none: not sent by a browser page)"
    return error("origin_not_allowed", f"Pages of {shown} may not count views here (COUNTERS_SITE_ORIGINS).")


def error(code: str, detail: str) -> bytes:
    """The API's error body."""
    return json.dumps({"error": code, "detail": detail}).encode()


async def read_body(receive: Any) -> bytes | None:
    """The whole body, or None once it passes MAX_BODY_BYTES (the rest is not read)."""
    chunks, size, more = [], 0, True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return b""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
        more = message.get("more_body", False)
    return b"".join(chunks)


async def answer(send: Any, status: int, body: bytes | None, headers: Headers) -> None:
    """Send the answer: a JSON body, or none (204)."""
    if body is not None:
        headers = [
            *headers,
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body or b""})


def count_beacon(
    scope: dict, headers: dict[bytes, bytes], origin: str, body: bytes | None
) -> tuple[int, Any]:
    """Rate-limit, read and count one beacon (in a worker thread); the status and body of the answer."""
    client = client_of(scope, headers)
    try:
        check_rate(conf.beacon_rate(), address=client.address, scope=RATE_SCOPE, what="beacons")
        fields = beacon_fields(headers, body)
        host = urlsplit(origin).netloc.lower()
        own = host == headers.get(b"host", b"").decode("latin-1").lower()
        page = site_pages().page_for(fields.get("path"), host="" if own else host)
        source = source_of(
            referrer=fields.get("referrer"), utm=fields.get("utm_source"), own_hosts=[host.rsplit(":", 1)[0]]
        )
        if page is not None:
            site_view_record(page=page, title=clean_title(fields.get("title")), source=source, client=client)
    except CounterError as exc:
        refused = answer_for(exc)
        return refused.status, error(refused.code, exc.detail)
    return 204, None


def beacon_fields(headers: dict[bytes, bytes], body: bytes | None) -> dict[str, Any]:
    """The beacon's JSON object; TooLarge, InvalidInput for a body of another type, shape or encoding."""
    if body is None:
        raise TooLarge(f"A beacon's body is at most {MAX_BODY_BYTES} bytes.")
    kind = headers.get(b"content-type", b"").decode("latin-1").split(";", 1)[0].strip().lower()
    if kind not in BODY_TYPES:
        raise InvalidInput("A beacon's body is JSON, sent as text/plain or application/json.")
    fields = loads_strict(body)
    if not isinstance(fields, dict) or not set(fields) <= FIELDS:
        raise InvalidInput(f"A beacon's body is a JSON object of {', '.join(sorted(FIELDS))}.")
    if any(value is not None and not isinstance(value, str) for value in fields.values()):
        raise InvalidInput("Each field of a beacon is a string.")
    return fields


def client_of(scope: dict, headers: dict[bytes, bytes]) -> Client:
    """The sender's address (through our own proxies) and user agent, for unique visitors and the limit."""
    remote = (scope.get("client") or ("", 0))[0]
    forwarded = headers.get(b"x-forwarded-for", b"").decode("latin-1")
    address = trusted_address(remote, forwarded, proxies=conf.proxy_count())
    return Client(address=address, user_agent=headers.get(b"user-agent", b"").decode("latin-1"))
