"""`/api/polls/<poll>/vote`: cast, move, retract and read a voter's vote (CSRF-protected, rate-limited)."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest, JsonResponse

from counters import selectors, services
from counters.domain.names import validate_slug
from counters.exceptions import InvalidInput
from counters.services.idempotency import validate_key
from counters.web.http.json_api import json_api
from counters.web.http.ratelimit import check_vote_rate
from counters.web.http.voters import become_voter, is_staff, voter_for, voter_is_new
from counters.web.input.bodies import FORM, JSON, read_body

# A vote is a few bytes; anything longer is refused before it is parsed.
MAX_BODY_BYTES = 1024
VOTE_TYPES = frozenset({JSON, FORM})
REPLAYED_HEADER = "Idempotent-Replayed"


@dataclass(frozen=True)
class VoteInput:
    """A vote request that fits the contract: the option (None to retract) and its Idempotency-Key."""

    option: str | None
    key: str | None
    picked: bool | None = None


def vote_input(request: HttpRequest, poll: str) -> VoteInput:
    """Everything a vote request says, checked without the store; InvalidInput (400/413/415) otherwise."""
    body = read_body(request, accept=VOTE_TYPES)
    if not isinstance(body, dict):
        raise InvalidInput('The body is a JSON object such as {"option": "python"}.')
    validate_slug(poll, what="poll id")
    key = validate_key(request.headers.get("Idempotency-Key"))
    if request.method == "DELETE":
        return VoteInput(option=None, key=key)
    if "option" not in body:
        raise InvalidInput('Say which option: {"option": "<id>"}.')
    picked = body.get("picked")
    if picked is not None and not isinstance(picked, bool):
        raise InvalidInput('"picked" is true (add the pick) or false (remove it).')
    return VoteInput(option=validate_slug(body["option"], what="option id"), key=key, picked=picked)


@json_api("GET", "POST", "DELETE", max_body=MAX_BODY_BYTES)
def vote(request: HttpRequest, poll: str) -> JsonResponse:
    """POST votes for `option` (or moves the vote), DELETE retracts, GET shows the voter's choice."""
    voter = voter_for(request)
    if request.method == "GET":
        totals = selectors.poll_totals(poll_id=poll)
        choice = selectors.voter_choices(voter=voter, poll_ids=[poll]).get(poll)
        shown = selectors.poll_for_asker(totals, staff=is_staff(request), has_voted=choice is not None)
        return JsonResponse({"poll": shown, "choice": choice})
    # Refused input costs no allowance: nor does an option the poll lacks, found from the options this
    # process knows (services/vote_options.py: no read for a known option). The rate limit then comes
    # before the vote's own reads and writes.
    asked = vote_input(request, poll)
    if asked.option is not None:
        services.vote_option_check(poll_id=poll, option=asked.option)
    check_vote_rate(request, voter)
    key, new_voter = asked.key, voter_is_new(request)
    if asked.option is not None:
        outcome = services.vote_cast(
            poll_id=poll,
            voter=voter,
            option=asked.option,
            idempotency_key=key,
            picked=asked.picked,
            new_voter=new_voter,
        )
    else:
        outcome = services.vote_retract(poll_id=poll, voter=voter, idempotency_key=key, new_voter=new_voter)
    if outcome.voter is not None:
        # A resend without a voter of its own, of a key whose first answer set its voter's cookie: this
        # answer sets that cookie again, so the client becomes the voter its vote counted for.
        become_voter(request, outcome.voter)
    has_voted = outcome.body["choice"] is not None
    shown = selectors.poll_for_asker(outcome.totals, staff=is_staff(request), has_voted=has_voted)
    response = JsonResponse({**outcome.body, "poll": shown})
    if outcome.replayed:
        response[REPLAYED_HEADER] = "true"
    return response
