"""`/api/polls/<poll>/vote`: cast, move, retract and read a voter's vote (CSRF-protected, rate-limited)."""

from __future__ import annotations

import json

from django.http import HttpRequest, JsonResponse, QueryDict

from counters import selectors, services
from counters.exceptions import InvalidInput
from counters.web.json_api import json_api
from counters.web.ratelimit import check_vote_rate
from counters.web.voters import voter_for

# A vote is a few bytes; anything longer is refused before it is parsed.
MAX_BODY_BYTES = 1024
REPLAYED_HEADER = "Idempotent-Replayed"


def parsed_body(request: HttpRequest) -> dict:
    """The request body as a dict: JSON or form-encoded (its size was checked by `json_api`)."""
    if not request.body:
        return {}
    if request.content_type == "application/json":
        try:
            data = json.loads(request.body)
        except (ValueError, UnicodeDecodeError) as exc:
            raise InvalidInput("The body is not valid JSON.") from exc
        if not isinstance(data, dict):
            raise InvalidInput('The body is a JSON object such as {"option": "python"}.')
        return data
    if request.content_type == "application/x-www-form-urlencoded":
        return QueryDict(request.body, encoding=request.encoding).dict()
    raise InvalidInput("Send the vote as JSON or as a form (application/x-www-form-urlencoded).")


@json_api("GET", "POST", "DELETE", max_body=MAX_BODY_BYTES)
def vote(request: HttpRequest, poll: str) -> JsonResponse:
    """POST votes for `option` (or moves the vote), DELETE retracts, GET shows the voter's choice."""
    voter = voter_for(request)
    if request.method == "GET":
        totals = selectors.poll_totals(poll_id=poll)
        choice = selectors.voter_choices(voter=voter, poll_ids=[poll]).get(poll)
        return JsonResponse({"poll": totals.as_dict(), "choice": choice})
    # Bad input is refused before the rate limit counts it, the rate limit before any read or write.
    body = parsed_body(request)
    key = request.headers.get("Idempotency-Key")
    check_vote_rate(request)
    if request.method == "POST":
        if "option" not in body:
            raise InvalidInput('Say which option: {"option": "<id>"}.')
        outcome = services.vote_cast(poll_id=poll, voter=voter, option=body["option"], idempotency_key=key)
    else:
        outcome = services.vote_retract(poll_id=poll, voter=voter, idempotency_key=key)
    response = JsonResponse(outcome.body)
    if outcome.replayed:
        response[REPLAYED_HEADER] = "true"
    return response
