"""HTML pages: the dashboard and the counted demo pages."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie

from counters import selectors
from counters.domain.names import DASHBOARD_COUNTER, SITE_VISITORS
from counters.exceptions import InvalidInput, StoreUnavailable, UnknownCounter
from counters.web.http.methods import allow_safe
from counters.web.http.voters import voter_for
from counters.web.views.counting import count_view, no_such_page

# The chart's range switch: each window with the step that gives it a readable number of bars.
CHART_RANGES = (
    {"window": "1h", "step": "1m", "label": "1 h", "title": "Last hour, by minute"},
    {"window": "24h", "step": "15m", "label": "24 h", "title": "Last 24 hours, by 15 minutes"},
    {"window": "48h", "step": "1h", "label": "48 h", "title": "Last 48 hours, by hour"},
    {"window": "90d", "step": "1d", "label": "90 d", "title": "Last 90 days, by day (the site's days)"},
)
DEFAULT_RANGE = "24h"
# The dashboard's table shows the busiest pages; the rest are one link away, this many to a page.
TOP_PAGES = 50


# Pages answer GET and HEAD only (405 otherwise); HEAD is not counted (see counters/web/views/counting.py).
@allow_safe
@ensure_csrf_cookie
# The dashboard renders on a table without its counter (`counters_init --no-demo`), just uncounted.
@count_view(DASHBOARD_COUNTER, registered_only=False)
def dashboard(request: HttpRequest) -> HttpResponse:
    """Headline numbers, the pages, their chart and the polls; the page's own loads are counted apart."""
    # Its socket names the dashboard even on a table without its counter: "dashboards open" counts it.
    request.counter_name = DASHBOARD_COUNTER
    # The view's own write already failed: skip the reads, so a hung store costs one timeout, not four.
    overview, polls, choices, unavailable = None, [], {}, request.counter_unavailable
    if not unavailable:
        try:
            polls = selectors.dashboard_polls()
            overview = selectors.overview(counters=selectors.counter_list(), polls=polls)
            choices = selectors.voter_choices(voter=voter_for(request), poll_ids=[poll.id for poll in polls])
        except StoreUnavailable:
            overview, polls, choices, unavailable = None, [], {}, True
    context = {
        "overview": overview,
        "top_pages": overview.pages[:TOP_PAGES] if overview else (),
        "top_limit": TOP_PAGES,
        "polls": polls,
        "choices": choices,
        "counts_unavailable": unavailable,
        "dashboard_counter": DASHBOARD_COUNTER,
        "site_visitors": SITE_VISITORS,
        "chart_ranges": CHART_RANGES,
        "default_range": DEFAULT_RANGE,
    }
    return render(request, "counters/dashboard.html", context)


@allow_safe
# Counted before the CSRF cookie is asked for: an unknown page's 404 sets no cookie.
@count_view(lambda request, slug: slug)
@ensure_csrf_cookie
def page(request: HttpRequest, slug: str) -> HttpResponse:
    """A demo page: each GET counts one view of it."""
    meta = selectors.PageMeta(slug=slug, title=slug, description="")
    if not request.counter_unavailable:
        try:
            meta = selectors.page_meta(slug=slug)
        except StoreUnavailable:
            pass
        except (UnknownCounter, InvalidInput) as exc:
            # Reached by HEAD, which counts nothing and so has not been refused yet.
            raise no_such_page(request) from exc
    context = {"meta": meta, "counter": request.counter, "counts_unavailable": request.counter_unavailable}
    return render(request, "counters/page.html", context)


@allow_safe
def all_pages(request: HttpRequest) -> HttpResponse:
    """Every page the dashboard counts, busiest first, TOP_PAGES to a page (`?page=2`); counts nothing."""
    try:
        pages = selectors.overview(counters=selectors.counter_list(), polls=[]).pages
    except StoreUnavailable:
        return render(request, "counters/all_pages.html", {"counts_unavailable": True}, status=503)
    listing = Paginator(pages, TOP_PAGES).get_page(request.GET.get("page"))
    return render(request, "counters/all_pages.html", {"listing": listing, "total": len(pages)})
