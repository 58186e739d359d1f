"""JSON answers and errors shared by every API view."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.request import RawPostDataException

from counters import conf
from counters.exceptions import CounterError, RateLimited, StoreUnavailable

logger = logging.getLogger(__name__)


def error_response(code: str, detail: str, *, status: int, retry_after: int | None = None) -> JsonResponse:
    """Build the contract's error body `{"error", "detail"}`."""
    response = JsonResponse({"error": code, "detail": detail}, status=status)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def response_for(exc: CounterError) -> JsonResponse:
    """Turn one of the project's errors into its JSON answer."""
    retry_after = exc.retry_after if isinstance(exc, (RateLimited, StoreUnavailable)) else None
    if isinstance(exc, StoreUnavailable):
        logger.warning("Store unavailable: %s", exc.__cause__ or exc)
    return error_response(exc.code, exc.detail, status=exc.status, retry_after=retry_after)


def body_too_large(request: HttpRequest) -> bool:
    """Whether the body is larger than any API request needs (COUNTERS_API_MAX_BODY_BYTES)."""
    limit = conf.api_max_body_bytes()
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit:
        return True
    try:
        # Also catches chunked bodies that declare no length; Django caps the read itself.
        return len(request.body) > limit
    except RequestDataTooBig:
        return True
    except RawPostDataException:
        # Already streamed into request.POST by a parser, within Django's own caps.
        return False


def json_api(*methods: str) -> Callable:
    """Allow only `methods`, and answer the project's errors as JSON instead of pages."""
    allowed = {method.upper() for method in methods}

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.method not in allowed:
                response = error_response(
                    "method_not_allowed",
                    f"Use {' or '.join(sorted(allowed))} here.",
                    status=405,
                )
                response["Allow"] = ", ".join(sorted(allowed))
                return response
            if body_too_large(request):
                return error_response(
                    "too_large", "The request body is larger than this API accepts.", status=413
                )
            try:
                return view(request, *args, **kwargs)
            except CounterError as exc:
                return response_for(exc)

        return wrapped

    return decorate
