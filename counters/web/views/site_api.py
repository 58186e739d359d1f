"""The whole site in the JSON API: today's summary, the site's history, sources per page and site (CSV)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse

from counters import selectors
from counters.domain.page_rules import SITE
from counters.exceptions import InvalidInput
from counters.selectors import site
from counters.web.http.json_api import json_api
from counters.web.input.queries import query_params
from counters.web.views.csv_export import csv_response


def days_asked(request: HttpRequest, default: int) -> int:
    """The `days` of the query (1 to 90), or `default`."""
    raw = query_params(request, "days").get("days")
    if raw is None:
        return default
    if not raw.isdigit():
        raise InvalidInput(f"days is a whole number from 1 to {site.MAX_DAYS}.")
    return int(raw)


@json_api("GET")
def site_summary(request: HttpRequest) -> JsonResponse:
    """`GET /api/site`: today's unique visitors of the site, its top pages and top sources."""
    return JsonResponse(site.site_summary().as_dict())


@json_api("GET")
def site_history(request: HttpRequest) -> JsonResponse:
    """`GET /api/site/history?window=...&step=...&series=views|visitors`: the whole site's history."""
    query = query_params(request, "window", "step", "series")
    history = selectors.counter_history(
        name=SITE, window=query.get("window"), step=query.get("step"), series=query.get("series", "views")
    )
    return JsonResponse(history.as_dict())


@json_api("GET")
def counter_sources(request: HttpRequest, name: str) -> JsonResponse:
    """`GET /api/counters/<name>/sources?days=1..90`: a page's sources, most views first."""
    days = days_asked(request, 1)
    sources = site.sources_of(name=name, days=days)
    return JsonResponse(
        {"name": name, "days": days, "sources": [source.as_dict("source") for source in sources]}
    )


@json_api("GET")
def counter_sources_csv(request: HttpRequest, name: str) -> HttpResponse:
    """`GET /api/counters/<name>/sources.csv?days=1..90`: a page's views per source per day."""
    return sources_csv(name, days_asked(request, 30))


@json_api("GET")
def site_sources_csv(request: HttpRequest) -> HttpResponse:
    """`GET /api/site/sources.csv?days=1..90`: the whole site's views per source per day."""
    return sources_csv(SITE, days_asked(request, 30))


def sources_csv(name: str, days: int) -> HttpResponse:
    """Rows `day,source,views` (the day as a date)."""
    rows = site.source_rows(name=name, days=days)
    return csv_response(
        f"{name.strip('_')}-sources-{days}d.csv",
        ["day", "source", "views"],
        ([day.split("#", 1)[-1], source, views] for day, source, views in rows),
    )
