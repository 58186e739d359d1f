"""The JSON API's view decorator: allowed methods, one body-size check, errors answered from one table."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.http.request import RawPostDataException

from counters import conf
from counters.exceptions import CounterError, TooLarge
from counters.web.http.errors import respond_to_error
from counters.web.http.methods import allow_methods


def check_body_size(request: HttpRequest, limit: int) -> None:
    """Refuse a body over `limit` bytes with TooLarge, before anything parses it."""
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    try:
        # Also catches chunked bodies that declare no length; Django caps the read itself.
        too_large = declared > limit or len(request.body) > limit
    except RequestDataTooBig:
        too_large = True
    except RawPostDataException:
        # Already streamed into request.POST by a parser, within Django's own caps.
        too_large = False
    if too_large:
        raise TooLarge(f"The request body is larger than this API accepts here ({limit} bytes).")


def json_api(*methods: str, max_body: int | None = None) -> Callable:
    """Allow only `methods` (405 before CSRF), cap the body (default COUNTERS_API_MAX_BODY_BYTES), answer
    errors as JSON."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            try:
                check_body_size(request, conf.api_max_body_bytes() if max_body is None else max_body)
                return view(request, *args, **kwargs)
            except CounterError as exc:
                return respond_to_error(request, exc, as_json=True)

        return allow_methods(*methods, as_json=True)(wrapped)

    return decorate
