"""The methods a view answers, checked before CSRF: a wrong method is a 405 naming the right ones.

Django's CsrfViewMiddleware runs before any view, so a POST or DELETE without a token to a view that
only answers GET was a CSRF 403, though no token could ever make it right. Here the method comes first,
then the same CSRF check (for views that take an unsafe method), then the view.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_protect

from counters.web.http.errors import METHOD_NOT_ALLOWED, respond

# The methods CSRF never guards (RFC 9110's safe methods, as CsrfViewMiddleware has them).
SAFE = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


def method_not_allowed(
    request: HttpRequest, allowed: tuple[str, ...], *, as_json: bool | None = None
) -> HttpResponse:
    """A 405 with the Allow header: JSON under /api/ (or when `as_json`), the error page elsewhere."""
    detail = f"Use {' or '.join(allowed)} here."
    response = respond(request, METHOD_NOT_ALLOWED, detail=detail, as_json=as_json)
    response["Allow"] = ", ".join(allowed)
    return response


def allow_methods(*methods: str, as_json: bool | None = None) -> Callable:
    """Answer only `methods` (any other is a 405, before CSRF), then check CSRF as the middleware would."""
    allowed = tuple(sorted(method.upper() for method in methods))

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        # A view answering safe methods only has nothing for CSRF to guard; nor has one exempt already.
        unguarded = set(allowed) <= SAFE or getattr(view, "csrf_exempt", False)
        checked = view if unguarded else csrf_protect(view)

        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.method not in allowed:
                return method_not_allowed(request, allowed, as_json=as_json)
            return checked(request, *args, **kwargs)

        # Left alone by the CSRF middleware, which would refuse a wrong method first; `checked` runs
        # the same check once the method is right.
        wrapped.csrf_exempt = True  # type: ignore[attr-defined]
        return wrapped

    return decorate


allow_safe = allow_methods("GET", "HEAD")
