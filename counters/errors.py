"""Error pages: JSON under /api/, readable HTML elsewhere."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from counters.http import error_response


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
