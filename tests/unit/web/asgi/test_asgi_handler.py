"""The one-hop ASGI handler: a request's signals, middleware and view share one thread, off the loop."""

from __future__ import annotations

import threading

import pytest
from django.core import signals
from django.http import HttpResponse, StreamingHttpResponse
from django.test import override_settings
from django.urls import path

from counters.web.asgi.asgi_handler import OneHopASGIHandler

events: list[tuple[str, int]] = []


def plain(request):
    events.append(("view", threading.get_ident()))
    return HttpResponse(b"plain")


def streamed(request):
    def parts():
        events.append(("streaming", threading.get_ident()))
        yield b"part"

    return StreamingHttpResponse(parts())


urlpatterns = [path("plain", plain), path("streamed", streamed)]


def on_started(**kwargs):
    events.append(("started", threading.get_ident()))


def on_finished(**kwargs):
    events.append(("finished", threading.get_ident()))


@pytest.fixture
def recorded():
    events.clear()
    signals.request_started.connect(on_started)
    signals.request_finished.connect(on_finished)
    yield events
    signals.request_started.disconnect(on_started)
    signals.request_finished.disconnect(on_finished)


async def call(handler: OneHopASGIHandler, route: str) -> list[dict]:
    """Send one GET through the handler; the ASGI messages it sent back (each noted in `events`)."""
    scope = {
        "type": "http",
        "method": "GET",
        "path": route,
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 80),
    }
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        events.append((message["type"], threading.get_ident()))
        sent.append(message)

    await handler(scope, receive, send)
    return sent


@override_settings(ROOT_URLCONF=__name__)
async def test_a_request_starts_runs_and_finishes_on_one_thread_that_is_not_the_loops(recorded):
    handler = OneHopASGIHandler(threads=2)
    sent = await call(handler, "/plain")
    loop_thread = threading.get_ident()
    assert sent[0]["status"] == 200 and sent[-1]["body"] == b"plain"
    names = [name for name, _ in recorded]
    # Closed (request_finished) before the bytes went out: the body was already in memory.
    assert names == ["started", "view", "finished", "http.response.start", "http.response.body"]
    threads = {name: thread for name, thread in recorded}
    assert threads["started"] == threads["view"] == threads["finished"] != loop_thread
    assert threads["http.response.start"] == loop_thread


# Django's own warning for a sync iterator served over ASGI, as under its default handler.
@pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume synchronous iterators")
@override_settings(ROOT_URLCONF=__name__)
async def test_a_streaming_response_is_closed_only_after_it_was_sent(recorded):
    handler = OneHopASGIHandler(threads=2)
    sent = await call(handler, "/streamed")
    assert b"".join(message.get("body", b"") for message in sent[1:]) == b"part"
    names = [name for name, _ in recorded]
    assert names.index("finished") > names.index("streaming")
    assert names[-1] == "finished"
