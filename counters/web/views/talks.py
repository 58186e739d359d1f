"""Talk authoring for presenters (`/p/talks`, `/p/talks/<talk>`): a talk's polls made, ordered, duplicated
and opened without the Django admin; and what phones on a talk's code ask (`/api/talks/<code>`)."""

from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render

from counters.exceptions import CounterError, InvalidInput, NotAllowed, VersionConflict
from counters.permissions import may_change_polls
from counters.selectors import talks as talk_reads
from counters.services import talks as talk_writes
from counters.web.http.errors import answer_for, log_store_error, respond_to_error
from counters.web.http.json_api import json_api
from counters.web.http.methods import allow_methods
from counters.web.input.bodies import JSON, read_body
from counters.web.views import talk_page

OPEN_MAX_BODY_BYTES = 256
MAY_NOT = "Only staff who may change polls author or open a talk."


def refuse_unless_allowed(request: HttpRequest) -> None:
    """NotAllowed unless the asker may change polls (as present mode's controls need)."""
    if not may_change_polls(getattr(request, "user", None)):
        raise NotAllowed(MAY_NOT)


@allow_methods("GET", "HEAD", "POST")
@staff_member_required
def talk_list(request: HttpRequest) -> HttpResponse:
    """Every talk, and a box to start one by its title."""
    error, title = "", ""
    try:
        if request.method == "POST":
            refuse_unless_allowed(request)
            title = request.POST.get("title", "")
            talk = talk_writes.talk_create(title=title)
            return redirect("counters:talk", talk=talk.id)
        talks = talk_reads.talk_list()
    except (InvalidInput, NotAllowed) as exc:
        error, status = exc.detail, answer_for(exc).status
        talks = talk_reads.talk_list()
    except CounterError as exc:
        return respond_to_error(request, exc)
    else:
        status = 200
    context = {"talks": talks, "error": error, "title": title, "can_change": may_change_polls(request.user)}
    return render(request, "counters/talk_list.html", context, status=status)


@allow_methods("GET", "HEAD", "POST")
@staff_member_required
def talk_detail(request: HttpRequest, talk: str) -> HttpResponse:
    """A talk's polls in order, to add, move, duplicate and open; each change one POST with the page's
    version, answered with the page again (the change made, or a readable refusal and nothing changed)."""
    form: dict[str, str] = {}
    try:
        if request.method == "POST":
            refuse_unless_allowed(request)
            return talk_page.apply(request, talk)
        context, status = talk_page.context(request, talk), 200
    except CounterError as exc:
        if not isinstance(exc, InvalidInput | NotAllowed | VersionConflict):
            return respond_to_error(request, exc)
        log_store_error(exc)
        form = {key: request.POST.get(key, "") for key in talk_page.DRAFT_FIELDS}
        try:
            context = talk_page.context(request, talk)
        except CounterError as again:
            return respond_to_error(request, again)
        context |= {"error": exc.detail}
        status = answer_for(exc).status
    return render(
        request, "counters/talk.html", context | {"form": form or talk_page.EMPTY_FORM}, status=status
    )


@json_api("GET")
def talk_now(request: HttpRequest, code: str) -> JsonResponse:
    """`GET /api/talks/<code>`: the poll a talk's presenter has open now (what phones on its code follow)."""
    talk = talk_reads.talk_by_code(code)
    polls = {poll.id: poll for poll in talk_reads.talk_polls(talk)}
    current = polls.get(talk.current)
    poll = {"id": current.id, "code": current.code, "question": current.question} if current else None
    return JsonResponse({"talk": talk.code, "title": talk.title, "poll": poll})


@json_api("POST", max_body=OPEN_MAX_BODY_BYTES)
def talk_open(request: HttpRequest, talk: str) -> JsonResponse:
    """`POST /api/talks/<talk>/open` {"poll": "<id>"}: phones on the talk's code now follow that poll."""
    refuse_unless_allowed(request)
    body = read_body(request, accept=frozenset({JSON}))
    if not isinstance(body, dict) or not isinstance(body.get("poll"), str):
        raise InvalidInput('Say which poll to open: {"poll": "<id>"}.')
    opened = talk_writes.talk_open(talk_id=talk, poll_id=body["poll"])
    return JsonResponse({"talk": opened.id, "code": opened.code, "open": opened.current})
