"""CSV exports of what the dashboard shows: its pages table, a counter's history and a poll's results."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.http import HttpRequest, HttpResponse

from counters import selectors
from counters.domain.buckets import iso
from counters.domain.clock import local_iso
from counters.exceptions import NotAllowed
from counters.runtime import runtime
from counters.web.http.json_api import json_api
from counters.web.input.queries import query_params
from counters.web.views.csv_export import csv_response
from counters.web.views.poll_api import shown

SHARE_DIGITS = 4


@json_api("GET")
def counter_history_csv(request: HttpRequest, name: str) -> HttpResponse:
    """`GET /api/counters/<name>/history.csv?window=&step=&series=`: the JSON history's buckets, one a row.

    Each row: the step's start in UTC (as the JSON has it), the same start in the site's time zone
    (a day step starts at local midnight), and the count.
    """
    query = query_params(request, "window", "step", "series")
    window, step, series = query.get("window"), query.get("step"), query.get("series", "views")
    history = selectors.counter_history(name=name, window=window, step=step, series=series)
    zone = ZoneInfo(history.time_zone)
    return csv_response(
        f"{history.name}-{history.series}-{history.window.name}-by-{history.step.name}.csv",
        ["start", "local_start", "count"],
        (
            [iso(start), local_iso(start, zone), count]
            for start, count in zip(history.starts, history.counts, strict=True)
        ),
    )


PAGE_COLUMNS = ["page", "title", "views", "views_today", "views_last_hour", "visitors_today", "bot_views"]


@json_api("GET")
def pages_csv(request: HttpRequest) -> HttpResponse:
    """`GET /api/pages.csv`: the dashboard's pages table, busiest first; "today" is the site's day."""
    query_params(request)
    pages = selectors.overview(counters=selectors.counter_list(), polls=[]).pages
    today = runtime().clock.today()
    return csv_response(
        f"pages-{today.date.isoformat()}.csv",
        PAGE_COLUMNS,
        (
            [
                page.state.name,
                page.state.title,
                page.state.value,
                page.today,
                page.last_hour,
                page.state.visitors_today or 0,
                page.state.bot_views,
            ]
            for page in pages
        ),
    )


@json_api("GET")
def poll_results_csv(request: HttpRequest, poll: str) -> HttpResponse:
    """`GET /api/polls/<poll>/results.csv`: each option's votes and share; 403 while they are hidden."""
    totals = selectors.poll_totals(poll_id=poll)
    if not shown(request, [totals])[0]["results_visible"]:
        raise NotAllowed("This poll's results are not shown yet.")
    total = totals.total_votes
    return csv_response(
        f"{totals.id}-results.csv",
        ["option", "label", "votes", "share"],
        (
            [
                option.id,
                option.label,
                option.votes,
                round(option.votes / total, SHARE_DIGITS) if total else 0.0,
            ]
            for option in totals.options
        ),
    )
