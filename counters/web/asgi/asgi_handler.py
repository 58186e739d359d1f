"""Django's ASGI handler, with each HTTP request's sync work (middleware, view, signals) in one thread hop."""

from __future__ import annotations

from typing import Any

import django
from asgiref.sync import sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse, HttpResponseBase
from django.urls import set_script_prefix

from counters.runtime.pools import RuntimePool, ThreadPool
from counters.web.asgi.daphne_forms import leave_forms_to_django


class OneHopASGIHandler(ASGIHandler):
    """Serve HTTP with a sync middleware chain, run whole on a pooled thread: one hop there and back.

    Why: Django's own handler builds the chain async and sends `request_started`, runs the chain, calls
    a sync view and closes the response each through its own `sync_to_async`, with two asyncio tasks per
    request to watch for a disconnect. The profile of a beacon (`python -m bench profile`) showed those
    five thread hand-offs as the largest share of the site's CPU. A sync site gains nothing from them:
    its views cannot be cancelled mid-call anyway. Here the request starts, passes every middleware and
    the view, and (unless it streams) finishes in one call on a thread of a shared pool; the event loop
    only reads the body and writes the answer. Websockets never come here (Channels routes them).
    """

    def __init__(self, *, threads: int | None = None) -> None:
        super(ASGIHandler, self).__init__()
        self.load_middleware(is_async=False)
        # One thread per request in flight, in the runtime's pool (as many as the store has connections,
        # closed with the runtime) unless `threads` sizes one; more requests than that queue for a thread.
        self.threads = (
            ThreadPool(threads, thread_name_prefix="request")
            if threads
            else RuntimePool(lambda process: process.request_threads)
        )
        self._serve_in_thread = sync_to_async(self.serve, thread_sensitive=False, executor=self.threads)
        self._close_in_thread = sync_to_async(self.close, thread_sensitive=False, executor=self.threads)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        try:
            response = await self._serve_in_thread(scope, body_file)
        finally:
            body_file.close()
        try:
            await self.send_response(response, send)
        finally:
            if response.streaming:
                # Its content was produced while sending, so it can only be closed now.
                await self._close_in_thread(response)

    def serve(self, scope: dict, body_file: Any) -> HttpResponseBase:
        """Start the request, run it through the middleware and view, and close it unless it streams."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__
            if isinstance(response, FileResponse):
                # The ASGI server chunks the body itself.
                response.block_size = self.chunk_size
        if not response.streaming:
            # The body is in memory already: closing it (request_finished) before it is sent saves a hop.
            self.close(response)
        return response

    @staticmethod
    def close(response: HttpResponseBase) -> None:
        """Close the response: its resources, then `request_finished`."""
        response.close()


def get_asgi_application() -> OneHopASGIHandler:
    """Set Django up and return the one-hop handler, as `django.core.asgi.get_asgi_application` does."""
    django.setup(set_prefix=False)
    # Called when the server imports the application, after its own modules: the one place that sees
    # daphne loaded under `daphne ...` and `runserver` alike (counters/web/asgi/daphne_forms.py).
    leave_forms_to_django()
    return OneHopASGIHandler()
