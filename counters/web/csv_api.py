"""CSV exports of the JSON API's reads: a counter's history and a poll's results."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from counters import selectors
from counters.exceptions import NotAllowed
from counters.web.csv_export import csv_response
from counters.web.json_api import json_api
from counters.web.poll_api import shown
from counters.web.queries import query_params

SHARE_DIGITS = 4


@json_api("GET")
def counter_history_csv(request: HttpRequest, name: str) -> HttpResponse:
    """`GET /api/counters/<name>/history.csv?window=1h|48h|90d`: the JSON history's buckets, one a row."""
    window = query_params(request, "window").get("window", "1h")
    history = selectors.counter_history(name=name, window=window).as_dict()
    return csv_response(
        f"{history['name']}-{history['window']}.csv",
        ["start", "count"],
        ([point["start"], point["count"]] for point in history["points"]),
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
