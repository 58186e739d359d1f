"""Keep Django's middleware chain synchronous under ASGI, so a request changes threads rarely."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse


class SyncMiddlewareChain:
    """Put last in MIDDLEWARE: a sync-only link that makes every middleware above it run synchronously.

    Why: under ASGI, Django builds the chain async wherever a middleware allows it, and each
    MiddlewareMixin in async mode hops to a worker thread for `process_request` and again for
    `process_response`; WhiteNoise, which is sync-only, then hops back to the event loop in the middle.
    The profile (bench, `python -m bench profile`) showed about a dozen thread hops per request and
    the thread hand-offs as the largest share of the site's CPU. With a sync-only link at the bottom the
    whole chain runs in one thread: one hop in, one to the handler on the loop, one back for the view.
    """

    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)
