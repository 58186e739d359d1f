"""A page's own view: its views, visitors, viewing now, chart and sources (`/site/pages/<name>/`)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from counters import selectors
from counters.exceptions import InvalidInput, StoreUnavailable, UnknownCounter
from counters.selectors import site
from counters.web.http.methods import allow_safe
from counters.web.views.pages import CHART_RANGES, DEFAULT_RANGE

SOURCE_DAYS = 30


@allow_safe
def page_view(request: HttpRequest, name: str) -> HttpResponse:
    """One page's numbers as the dashboard shows the site's; not counted as a view of anything."""
    context = {"chart_ranges": CHART_RANGES, "default_range": DEFAULT_RANGE, "source_days": SOURCE_DAYS}
    try:
        state = selectors.counter_detail(name=name)
        if state.kind != "views":
            raise Http404(f"{name} counts votes, not views of a page.")
        context |= {
            "state": state,
            "sources_today": site.sources_of(name=name, days=1),
            "sources_month": site.sources_of(name=name, days=SOURCE_DAYS),
        }
    except (UnknownCounter, InvalidInput) as exc:
        raise Http404(exc.detail) from exc
    except StoreUnavailable:
        context["counts_unavailable"] = True
    return render(request, "counters/site_page.html", context)
