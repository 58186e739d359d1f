"""HTML pages: the dashboard and the counted demo pages."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie

from counters import selectors
from counters.counting import count_view
from counters.exceptions import StoreUnavailable
from counters.seed import DASHBOARD_COUNTER


@ensure_csrf_cookie
@count_view(DASHBOARD_COUNTER)
def dashboard(request: HttpRequest) -> HttpResponse:
    """Show every counter and poll; the page itself counts as a view."""
    try:
        counters = selectors.counter_list()
        polls = selectors.poll_list()
        unavailable = False
    except StoreUnavailable:
        counters, polls, unavailable = [], [], True
    context = {
        "counters": counters,
        "pages": [state for state in counters if state.kind == "views" and state.name != DASHBOARD_COUNTER],
        "polls": polls,
        "counts_unavailable": unavailable or request.counter_unavailable,
    }
    return render(request, "counters/dashboard.html", context)


@ensure_csrf_cookie
@count_view(lambda request, slug: slug)
def page(request: HttpRequest, slug: str) -> HttpResponse:
    """A demo page: each GET counts one view of it."""
    try:
        meta = selectors.page_meta(slug=slug)
    except StoreUnavailable:
        meta = selectors.PageMeta(slug=slug, title=slug, description="")
    context = {"meta": meta, "counter": request.counter, "counts_unavailable": request.counter_unavailable}
    return render(request, "counters/page.html", context)
