"""The JSON API: counters, view beacons and polls."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from counters import selectors, services
from counters.web.http.json_api import json_api
from counters.web.http.visitors import client_of
from counters.web.http.voters import no_voter_cookie, voter_for
from counters.web.input.bodies import FORM, JSON, MULTIPART, TEXT, UNTYPED, read_body
from counters.web.input.queries import query_params
from counters.web.views.poll_api import hidden_names, refuse_hidden, shown

# A beacon's body is ignored, but one it is sent must be readable: what sendBeacon and forms send.
BEACON_TYPES = frozenset({UNTYPED, TEXT, JSON, FORM, MULTIPART})


@json_api("GET")
def counter_list(request: HttpRequest) -> JsonResponse:
    """`GET /api/counters`: every counter, but the poll options whose totals the asker may not see."""
    states = selectors.counter_list()
    hidden = hidden_names(request, [state.name for state in states])
    return JsonResponse({"counters": [state.as_dict() for state in states if state.name not in hidden]})


@json_api("GET")
def counter_detail(request: HttpRequest, name: str) -> JsonResponse:
    """`GET /api/counters/<name>`: one counter (a page's with `viewing_now`); 404 unknown, 403 hidden."""
    state = selectors.counter_detail(name=name)
    refuse_hidden(request, name)
    body = state.as_dict()
    if state.kind == "views":
        body["viewing_now"] = selectors.counter_viewing_now(name=name)
    return JsonResponse(body)


@json_api("GET")
def counter_history(request: HttpRequest, name: str) -> JsonResponse:
    """`GET /api/counters/<name>/history?window=1h|24h|48h|90d&step=1m|15m|1h|1d&series=views|visitors`."""
    query = query_params(request, "window", "step", "series")
    window, step, series = query.get("window"), query.get("step"), query.get("series", "views")
    return JsonResponse(
        selectors.counter_history(name=name, window=window, step=step, series=series).as_dict()
    )


@json_api("GET")
def sparklines(request: HttpRequest) -> JsonResponse:
    """`GET /api/sparklines?views=a,b&visitors=a,_site`: many pages' small trends in one answer."""
    query = query_params(request, "views", "visitors")
    found = selectors.sparklines(
        views=name_list(query.get("views")), visitors=name_list(query.get("visitors"))
    )
    return JsonResponse({series: [history.as_dict() for history in found[series]] for series in found})


def name_list(value: str | None) -> list[str]:
    """Comma-separated names (none for an absent or empty parameter)."""
    return [name for name in (value or "").split(",") if name]


@no_voter_cookie
@json_api("POST")
def view_beacon(request: HttpRequest, slug: str) -> JsonResponse:
    """`POST /api/views/<slug>`: count one view of a registered page (a body, ignored, must be readable)."""
    read_body(request, accept=BEACON_TYPES)
    return JsonResponse(services.view_record(slug=slug, client=client_of(request)).as_dict())


@no_voter_cookie
@json_api("GET")
def overview(request: HttpRequest) -> JsonResponse:
    """`GET /api/overview`: the dashboard's numbers, pages, polls (with the totals the asker may see)
    and the voter's choices, as a load shows."""
    polls = selectors.poll_list()
    body = selectors.overview(counters=selectors.counter_list(), polls=polls).as_dict()
    body["poll_list"] = shown(request, polls)
    body["choices"] = selectors.voter_choices(voter=voter_for(request), poll_ids=[poll.id for poll in polls])
    return JsonResponse(body)
