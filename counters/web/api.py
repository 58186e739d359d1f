"""The JSON API: counters, view beacons and polls."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from counters import selectors, services
from counters.web.bodies import FORM, JSON, MULTIPART, TEXT, UNTYPED, read_body
from counters.web.json_api import json_api
from counters.web.queries import query_params
from counters.web.visitors import client_of
from counters.web.voters import no_voter_cookie, voter_for

# A beacon's body is ignored, but one it is sent must be readable: what sendBeacon and forms send.
BEACON_TYPES = frozenset({UNTYPED, TEXT, JSON, FORM, MULTIPART})


@json_api("GET")
def counter_list(request: HttpRequest) -> JsonResponse:
    """`GET /api/counters`: every counter."""
    return JsonResponse({"counters": [state.as_dict() for state in selectors.counter_list()]})


@json_api("GET")
def counter_detail(request: HttpRequest, name: str) -> JsonResponse:
    """`GET /api/counters/<name>`: one counter (a page's with `viewing_now`), 404 if unknown."""
    state = selectors.counter_detail(name=name)
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


@no_voter_cookie
@json_api("POST")
def view_beacon(request: HttpRequest, slug: str) -> JsonResponse:
    """`POST /api/views/<slug>`: count one view of a registered page (a body, ignored, must be readable)."""
    read_body(request, accept=BEACON_TYPES)
    return JsonResponse(services.view_record(slug=slug, client=client_of(request)).as_dict())


@json_api("GET")
def poll_list(request: HttpRequest) -> JsonResponse:
    """`GET /api/polls`: every poll with its options and totals."""
    return JsonResponse({"polls": [poll.as_dict() for poll in selectors.poll_list()]})


@no_voter_cookie
@json_api("GET")
def overview(request: HttpRequest) -> JsonResponse:
    """`GET /api/overview`: the dashboard's numbers, pages, polls and the voter's choices, as a load shows."""
    polls = selectors.poll_list()
    body = selectors.overview(counters=selectors.counter_list(), polls=polls).as_dict()
    body["poll_list"] = [poll.as_dict() for poll in polls]
    body["choices"] = selectors.voter_choices(voter=voter_for(request), poll_ids=[poll.id for poll in polls])
    return JsonResponse(body)
