"""Each HTTP request runs its sync work on one thread of its own, and those threads are reused."""

from __future__ import annotations

import asyncio
import threading

from asgiref.sync import ThreadSensitiveContext, sync_to_async

from counters.web.request_threads import ReusedRequestThreads


def recording_app(seen: list[threading.Thread], barrier: threading.Barrier | None = None):
    """An ASGI app shaped like Django's handler (a context per request) noting each sync step's thread."""

    def step() -> threading.Thread:
        if barrier is not None:
            barrier.wait(timeout=5)  # both requests must be inside at once: two threads, or this breaks
        return threading.current_thread()

    async def app(scope, receive, send):
        async with ThreadSensitiveContext():
            seen.append(await sync_to_async(step)())
            seen.append(await sync_to_async(threading.current_thread)())

    return app


async def test_one_request_keeps_one_thread_and_the_next_reuses_it():
    seen: list[threading.Thread] = []
    app = ReusedRequestThreads(recording_app(seen))
    await app({"type": "http"}, None, None)
    await app({"type": "http"}, None, None)
    # Thread objects, not idents: a new thread may get a dead one's ident.
    assert all(thread is seen[0] for thread in seen)
    assert seen[0] is not threading.current_thread()


async def test_without_it_each_request_starts_a_new_thread():
    seen: list[threading.Thread] = []
    app = recording_app(seen)
    await app({"type": "http"}, None, None)
    await app({"type": "http"}, None, None)
    assert seen[0] is seen[1] and seen[2] is seen[3] and seen[0] is not seen[2]


async def test_concurrent_requests_run_on_threads_of_their_own():
    seen: list[threading.Thread] = []
    app = ReusedRequestThreads(recording_app(seen, threading.Barrier(2)))
    await asyncio.gather(app({"type": "http"}, None, None), app({"type": "http"}, None, None))
    assert len({id(thread) for thread in seen}) == 2


async def test_idle_threads_beyond_the_limit_are_let_go():
    seen: list[threading.Thread] = []
    app = ReusedRequestThreads(recording_app(seen, threading.Barrier(2)), keep_idle=1)
    await asyncio.gather(app({"type": "http"}, None, None), app({"type": "http"}, None, None))
    assert len(app._idle) == 1


async def test_other_scopes_pass_through_untouched():
    calls = []

    async def app(scope, receive, send):
        calls.append(scope["type"])

    wrapped = ReusedRequestThreads(app)
    await wrapped({"type": "websocket"}, None, None)
    assert calls == ["websocket"] and wrapped._idle == []
