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

import functools
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from counters import conf
from counters.domain.addresses import trusted_address
from counters.domain.bots import is_bot
from counters.domain.page_rules import clean_title
from counters.domain.sources import source_of
from counters.domain.visitors import Client
from counters.exceptions import CounterError, InvalidInput, TooLarge, UnknownCounter
from counters.runtime.off_loop import in_thread
from counters.runtime.pools import RuntimePool, ThreadPool
from counters.services.site_pages import Page, page_views_add, site_pages, site_view_record
from counters.services.site_tallies import site_tally
from counters.services.visitors import visitor_book
from counters.web.asgi.beacon_batches import LoopBatches
from counters.web.http.errors import answer_for
from counters.web.http.ratelimit import check_rate, limiter_is_local
from counters.web.input.strict_json import loads_strict

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
        # The store's calls block (boto3): in the runtime's threads, as many as the store has connections.
        self.threads = (
            ThreadPool(threads, thread_name_prefix="beacon")
            if threads
            else RuntimePool(lambda process: process.beacon_threads)
        )
        # Beacons of a page this process counted before share one write per batch (beacon_batches.py).
        self.batches = LoopBatches(page_views_add, self.threads)
        self.known_pages: set[str] = set()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != self.path:
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        origin = headers.get(b"origin", b"").decode("latin-1")
        cors = [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")]
        if scope["method"] not in ("POST", "OPTIONS"):
            allow = [(b"allow", b"POST, OPTIONS")]
            return await answer(send, 405, error("method_not_allowed", "Send POST."), allow)
        if not origin_allowed(origin, host=headers.get(b"host", b"").decode("latin-1")):
            return await answer(send, 403, refusal(origin), [(b"vary", b"Origin")])
        if scope["method"] == "OPTIONS":
            return await answer(send, 204, None, cors + PREFLIGHT_HEADERS)
        body = await read_body(receive)
        try:
            await self.count(client_of(scope, headers), read_hit(headers, origin, body))
        except CounterError as exc:
            refused = answer_for(exc)
            return await answer(send, refused.status, error(refused.code, exc.detail), cors)
        return await answer(send, 204, None, cors)

    async def count(self, client: Client, hit: Hit) -> None:
        """Rate-limit and count one beacon: on the loop when nothing but the page's write needs I/O."""
        limit = functools.partial(check_rate, conf.beacon_rate(), address=client.address, scope=RATE_SCOPE)
        if limiter_is_local():
            limit(what="beacons")
        else:  # Redis: a round trip, off the loop
            await in_thread(limit, what="beacons", threads=self.threads)
        if hit.page is None:
            return  # a path the rules leave out: answered, not counted
        if self.known(hit.page.name, client):
            try:
                await self.batches.submit(hit.page.name)
            except UnknownCounter:
                self.known_pages.discard(hit.page.name)  # deleted meanwhile: counted (and created) below
            else:
                site_tally(name=hit.page.name, source=hit.source)
                return
        view = functools.partial(
            site_view_record, page=hit.page, title=hit.title, source=hit.source, client=client
        )
        if await in_thread(view, threads=self.threads) is not None:
            self.known_pages.add(hit.page.name)

    def known(self, name: str, client: Client) -> bool:
        """A person's view of a page counted here before, by a visitor known today: only a write to make."""
        if name not in self.known_pages or (conf.count_bots_separately() and is_bot(client.user_agent)):
            return False
        return visitor_book().known(name=name, client=client)


def origin_allowed(origin: str, *, host: str) -> bool:
    """An origin in COUNTERS_SITE_ORIGINS, or the site's own (the request's Host); never a missing one."""
    if not origin or origin == "null":
        return False
    if origin.lower().rstrip("/") in site_pages().origins:
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


@dataclass(frozen=True)
class Hit:
    """A beacon as read: its page (None if the rules leave the path out), title and source."""

    page: Page | None
    title: str
    source: str | None


def read_hit(headers: dict[bytes, bytes], origin: str, body: bytes | None) -> Hit:
    """The beacon's page, title and source; TooLarge or InvalidInput (a 400) for a body that is not usable."""
    fields = beacon_fields(headers, body)
    host = urlsplit(origin).netloc.lower()
    own = host == headers.get(b"host", b"").decode("latin-1").lower()
    page = site_pages().page_for(fields.get("path"), host="" if own else host)
    # Validated even for a page left out: bad input is a 400 whatever the rules say.
    source = source_of(
        referrer=fields.get("referrer"), utm=fields.get("utm_source"), own_hosts=[host.rsplit(":", 1)[0]]
    )
    return Hit(page=page, title=clean_title(fields.get("title")), source=source)


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
