"""The demo page without its count: same middleware, view body, template and CSRF cookie."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import ensure_csrf_cookie

from counters.domain.values import CounterState
from counters.web.views import pages


@ensure_csrf_cookie
def uncounted_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Render the counted page's own view body with a fixed total instead of counting."""
    # A state like the one the count would return, so the template renders the same markup.
    request.counter = CounterState(name=slug, kind="views", value=123_456, version=123_456)
    request.counter_unavailable = False
    return pages.page.uncounted(request, slug)
