"""`/api/polls`, `/api/polls/<poll>` and the staff's `/api/polls/<poll>/control`: polls as the asker may
see them (hidden totals never leave for the audience), and the presenter's reveal, hide, close, reopen."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from counters import selectors, services
from counters.domain.names import validate_counter_name, validate_slug
from counters.exceptions import InvalidInput, NotAllowed
from counters.permissions import may_change_polls
from counters.web.http.json_api import json_api
from counters.web.http.voters import is_staff, voter_for
from counters.web.input.bodies import JSON, read_body

CONTROL_MAX_BODY_BYTES = 256


def shown(request: HttpRequest, polls: list[selectors.PollTotals]) -> list[dict]:
    """The polls as this asker may see them (the voter's choices read only if a poll's rule needs them)."""
    staff = is_staff(request)
    needs_choice = [p.id for p in polls if not staff and p.poll.results == "voted"]
    choices = selectors.voter_choices(voter=voter_for(request), poll_ids=needs_choice)
    return [selectors.poll_for_asker(p, staff=staff, has_voted=p.id in choices) for p in polls]


def hidden_names(request: HttpRequest, names: list[str]) -> set[str]:
    """Of `names`, the poll option counters (`<poll>.<option>`) whose totals the asker may not see."""
    poll_ids = sorted({name.split(".", 1)[0] for name in names if "." in name})
    if not poll_ids or is_staff(request):
        return set()
    if len(poll_ids) == 1:
        polls = [selectors.poll_totals(poll_id=poll_ids[0])]
    else:
        polls = [p for p in selectors.poll_list() if p.id in poll_ids]
    needs_choice = [p.id for p in polls if p.poll.results == "voted"]
    choices = selectors.voter_choices(voter=voter_for(request), poll_ids=needs_choice)
    return selectors.hidden_counters(polls, staff=False, choices=choices)


def refuse_hidden(request: HttpRequest, name: str) -> None:
    """NotAllowed (403) if `name` is a poll option whose totals the asker may not see now."""
    if name in hidden_names(request, [validate_counter_name(name)]):
        raise NotAllowed("This poll's results are not shown yet.")


@json_api("GET")
def poll_list(request: HttpRequest) -> JsonResponse:
    """`GET /api/polls`: every poll with its options, and the totals the asker may see."""
    return JsonResponse({"polls": shown(request, selectors.poll_list())})


@json_api("GET")
def poll_detail(request: HttpRequest, poll: str) -> JsonResponse:
    """`GET /api/polls/<poll>`: one poll, 404 if unknown."""
    return JsonResponse(shown(request, [selectors.poll_totals(poll_id=poll)])[0])


@json_api("POST", max_body=CONTROL_MAX_BODY_BYTES)
def poll_control(request: HttpRequest, poll: str) -> JsonResponse:
    """`POST /api/polls/<poll>/control` {"action": "reveal"|"hide"|"close"|"reopen"}: the poll.

    Allowed to whoever the admin lets change polls (the same rule), refused before the body is read.
    """
    if not may_change_polls(getattr(request, "user", None)):
        raise NotAllowed("Only staff who may change polls control a poll.")
    body = read_body(request, accept=frozenset({JSON}))
    if not isinstance(body, dict) or body.get("action") not in services.POLL_ACTIONS:
        raise InvalidInput(f'Say what to do: {{"action": one of {", ".join(services.POLL_ACTIONS)}}}.')
    services.poll_control(poll_id=validate_slug(poll, what="poll id"), action=body["action"])
    totals = selectors.poll_totals(poll_id=poll)
    return JsonResponse(selectors.poll_for_asker(totals, staff=True, has_voted=False))
