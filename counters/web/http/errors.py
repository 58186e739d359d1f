"""Every error's HTTP answer from one table: JSON `{"error", "detail"}` under /api/, else a readable page.

The project's exceptions (counters/exceptions.py) say what went wrong; this module alone says which
status and code that is. Django's own refusals (404, 403, CSRF, 400, 413, 500) go through the same
table from the site's handlers, so a page and the API never disagree about a status.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.core.exceptions import BadRequest, PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from counters.exceptions import (
    Conflict,
    CounterError,
    IdempotencyKeyInUse,
    IdempotencyKeyReused,
    InvalidInput,
    NotAllowed,
    OutcomeUnknown,
    PageLimitReached,
    PollClosed,
    RateLimited,
    StoreMisconfigured,
    StoreUnavailable,
    TooLarge,
    UnknownCounter,
    VersionConflict,
)
from counters.web.input.bodies import UnsupportedMediaType

logger = logging.getLogger(__name__)
API_PREFIX = "/api/"


@dataclass(frozen=True)
class Answer:
    """An HTTP answer: status, the JSON `error` code, the page title, and the sentence when none is given."""

    status: int
    code: str
    title: str
    detail: str


NOT_FOUND = Answer(
    404, "not_found", "Page not found", "There is no page at this address. The dashboard lists every page."
)
FORBIDDEN = Answer(403, "forbidden", "Forbidden", "You are not allowed to do this.")
CSRF_FAILED = Answer(
    403, "csrf_failed", "Forbidden", "This request needs a valid CSRF token (reload the page and try again)."
)
BAD_REQUEST = Answer(400, "bad_request", "Bad request", "This request is malformed or not allowed here.")
TOO_LARGE = Answer(413, "too_large", "Too large", "The request body is larger than this site accepts.")
SERVER_ERROR = Answer(
    500, "server_error", "Server error", "Something went wrong on our side; it has been logged."
)
UNSUPPORTED_TYPE = Answer(
    415, "unsupported_media_type", "Unsupported media type", "This endpoint does not read that content type."
)
METHOD_NOT_ALLOWED = Answer(
    405, "method_not_allowed", "Method not allowed", "This method is not allowed here."
)
UNAVAILABLE = Answer(
    503, "store_unavailable", "Counts unavailable", "The counter store cannot be reached right now."
)

MISCONFIGURED = Answer(
    503, "store_misconfigured", "Counter store not set up", "The counter store is not configured correctly."
)

# The first class an error is an instance of gives its answer, so subclasses come before their bases.
ANSWERS: tuple[tuple[type[BaseException], Answer], ...] = (
    (OutcomeUnknown, Answer(503, "outcome_unknown", "Outcome unknown", UNAVAILABLE.detail)),
    (StoreMisconfigured, MISCONFIGURED),
    (StoreUnavailable, UNAVAILABLE),
    (RateLimited, Answer(429, "rate_limited", "Too many requests", "Too many requests; try again shortly.")),
    (VersionConflict, Answer(409, "version_conflict", "Changed meanwhile", "The counter changed meanwhile.")),
    (PollClosed, Answer(409, "poll_closed", "Poll closed", "This poll takes no more votes.")),
    (IdempotencyKeyReused, Answer(409, "idempotency_key_reused", "Key reused", "This key was used before.")),
    (IdempotencyKeyInUse, Answer(409, "idempotency_key_in_use", "Key in use", "Used by another voter.")),
    (PageLimitReached, Answer(409, "page_limit", "Page limit reached", "This site counts no new pages.")),
    (Conflict, Answer(409, "conflict", "Conflict", "Something changed meanwhile; look again and retry.")),
    (TooLarge, TOO_LARGE),
    (UnsupportedMediaType, UNSUPPORTED_TYPE),
    (RequestDataTooBig, TOO_LARGE),
    (UnknownCounter, NOT_FOUND),
    (NotAllowed, Answer(403, "not_allowed", "Not allowed", FORBIDDEN.detail)),
    (Http404, NOT_FOUND),
    (InvalidInput, Answer(400, "invalid", "Invalid input", "This input does not fit the contract.")),
    (PermissionDenied, FORBIDDEN),
    (SuspiciousOperation, BAD_REQUEST),
    (BadRequest, BAD_REQUEST),
    # Any other error of the project is the caller's to fix, never a server error.
    (CounterError, Answer(400, "error", "Not accepted", "This request cannot be answered as asked.")),
)


def answer_for(exc: BaseException) -> Answer:
    """The table's answer for an error; anything it does not list is a server error."""
    return next((answer for kind, answer in ANSWERS if isinstance(exc, kind)), SERVER_ERROR)


def wants_json(request: HttpRequest) -> bool:
    """API paths answer JSON."""
    return request.path.startswith(API_PREFIX)


def respond(
    request: HttpRequest,
    answer: Answer,
    *,
    detail: str | None = None,
    retry_after: int | None = None,
    as_json: bool | None = None,
) -> HttpResponse:
    """Build an answer's response: the contract's JSON body for the API, the error page otherwise."""
    detail = detail or answer.detail
    if as_json if as_json is not None else wants_json(request):
        response: HttpResponse = JsonResponse({"error": answer.code, "detail": detail}, status=answer.status)
    else:
        context = {"title": answer.title, "detail": detail, "status": answer.status}
        response = render(request, "counters/error.html", context, status=answer.status)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def respond_to_error(
    request: HttpRequest, exc: BaseException, *, as_json: bool | None = None
) -> HttpResponse:
    """Answer one of the project's (or Django's) errors with its detail and Retry-After, if any."""
    log_store_error(exc)
    detail = exc.detail if isinstance(exc, CounterError) else None
    return respond(
        request,
        answer_for(exc),
        detail=detail,
        retry_after=getattr(exc, "retry_after", None),
        as_json=as_json,
    )


def log_store_error(exc: BaseException) -> None:
    """An outage is a warning (a configuration error was logged where it was found, misconfigured.py)."""
    if isinstance(exc, StoreUnavailable) and not isinstance(exc, StoreMisconfigured):
        logger.warning("Store unavailable: %s", exc.__cause__ or exc)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler404: the Http404's own sentence when it has one."""
    detail = exception.args[0] if exception is not None and exception.args else None
    return respond(request, NOT_FOUND, detail=detail if isinstance(detail, str) else None)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: never a traceback to the client."""
    return respond(request, SERVER_ERROR)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a missing or wrong CSRF token."""
    return respond(request, CSRF_FAILED)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler400: a request Django refused (bad Host, malformed or oversized body); no detail from it."""
    return respond(request, TOO_LARGE if isinstance(exception, RequestDataTooBig) else BAD_REQUEST)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler403."""
    return respond(request, FORBIDDEN)
