"""Run each HTTP request's sync code on a reused thread instead of a new thread per request."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext

# Idle request threads kept for reuse; more concurrent requests than this start (and later end) threads.
KEEP_IDLE = 64


class ReusedRequestThreads:
    """ASGI wrapper: each HTTP request borrows a one-thread executor for all its thread-sensitive work.

    Why: Django's ASGI handler opens a ThreadSensitiveContext per request, and asgiref gives each such
    context a brand-new one-thread executor, so every request starts a thread and joins it at the end.
    An outer context that brings its own executor (asgiref >= 3.10) is used by Django's inner one, so the
    request's middleware, view and store call still run on a single thread of their own, as Django
    expects, but that thread is reused. The free list is touched only from the event loop (no lock).
    """

    def __init__(self, app: Any, *, keep_idle: int = KEEP_IDLE) -> None:
        self.app = app
        self.keep_idle = keep_idle
        self._idle: list[ThreadPoolExecutor] = []

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        executor = self._idle.pop() if self._idle else ThreadPoolExecutor(1, thread_name_prefix="request")
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.app(scope, receive, send)
        finally:
            # A request cancelled mid-call may still be running on it: the next borrower just queues behind.
            if len(self._idle) < self.keep_idle:
                self._idle.append(executor)
            else:
                executor.shutdown(wait=False)
