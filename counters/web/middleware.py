"""The app's HTTP middleware: a sync-only chain end (fewer thread hops), and malformed form bodies as 400."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError

from counters.web.errors import bad_request


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


FORM_TYPES = frozenset({"multipart/form-data", "application/x-www-form-urlencoded"})


class MalformedBodyMiddleware:
    """Parse a POSTed form once, up front: a broken multipart body (no boundary, bad framing) is 400.

    Why: CsrfViewMiddleware reads request.POST for its token, and MultiPartParserError is not one of
    the errors Django turns into a 400, so without this a malformed upload is a 500. Bodies over
    DATA_UPLOAD_MAX_MEMORY_SIZE raise RequestDataTooBig here, which handler400 answers with a 413.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and request.content_type in FORM_TYPES:
            try:
                # Read the body whole first (capped by DATA_UPLOAD_MAX_MEMORY_SIZE, uploads included), so
                # the form is parsed from memory and request.body stays readable for the views.
                request.body  # noqa: B018 - reading is the point
                request.POST  # noqa: B018 - parsing is the point
            except MultiPartParserError as exc:
                return bad_request(request, exc)
        return self.get_response(request)
