"""Error pages: JSON under /api/, readable HTML elsewhere."""

from __future__ import annotations

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from counters.web.json_api import error_response


def wants_json(request: HttpRequest) -> bool:
    """API paths answer JSON."""
    return request.path.startswith("/api/")


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """404: JSON for the API, a page otherwise."""
    detail = "Nothing lives at this address."
    if exception is not None and exception.args and isinstance(exception.args[0], str):
        detail = exception.args[0]
    if wants_json(request):
        return error_response("not_found", detail, status=404)
    return render(request, "counters/error.html", {"title": "Not found", "detail": detail}, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    """500: never a traceback to the client."""
    detail = "Something went wrong on our side; it has been logged."
    if wants_json(request):
        return error_response("server_error", detail, status=500)
    return render(request, "counters/error.html", {"title": "Server error", "detail": detail}, status=500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """403 for a missing or wrong CSRF token."""
    detail = "This request needs a valid CSRF token (reload the page and try again)."
    if wants_json(request):
        return error_response("csrf_failed", detail, status=403)
    return render(request, "counters/error.html", {"title": "Forbidden", "detail": detail}, status=403)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """400 for a request Django refused (bad Host, malformed body): no detail from the exception."""
    if isinstance(exception, RequestDataTooBig):
        return too_large(request)
    detail = "This request is malformed or not allowed here."
    if wants_json(request):
        return error_response("bad_request", detail, status=400)
    return render(request, "counters/error.html", {"title": "Bad request", "detail": detail}, status=400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """403: JSON for the API, a page otherwise."""
    detail = "You are not allowed to do this."
    if wants_json(request):
        return error_response("forbidden", detail, status=403)
    return render(request, "counters/error.html", {"title": "Forbidden", "detail": detail}, status=403)


def too_large(request: HttpRequest) -> HttpResponse:
    """413 for a body larger than Django or the API reads."""
    detail = "The request body is larger than this site accepts."
    if wants_json(request):
        return error_response("too_large", detail, status=413)
    return render(request, "counters/error.html", {"title": "Too large", "detail": detail}, status=413)
