"""The app's HTTP middleware: malformed form bodies answered 400."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError

from counters.web.http.errors import bad_request

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
