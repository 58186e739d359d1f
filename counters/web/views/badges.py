"""`GET /badge/<name>.svg`: a counter's count as a small badge to embed anywhere (a README, another site).

Counting the fetch as a view is the counter's own choice (`manage.py counters_badge`, or the admin),
off by default, so a badge neither inflates a count nor counts anything its owner did not ask for.
Unknown and malformed names get the JSON API's errors. `Cache-Control: public, no-cache` with an ETag:
any cache may keep a badge, image proxies (GitHub's camo) ask again every time, and a count that has
not moved costs a 304. A badge is shown on other people's pages, so it carries no cookie of ours (not
the voter's, not CSRF's, no session) and no `Vary: Cookie`: it is the same image for everyone.
"""

from __future__ import annotations

import hashlib

from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response, patch_cache_control

from counters import selectors, services
from counters.domain.values import CounterState
from counters.exceptions import InvalidInput
from counters.web.http.json_api import json_api
from counters.web.http.visitors import client_of
from counters.web.http.voters import no_voter_cookie
from counters.web.input.queries import query_params
from counters.web.views.badge_svg import badge_text, draw_badge
from counters.web.views.poll_api import refuse_hidden

# `?show=` -> the counter's field it shows: its total, or today's unique visitors of a page.
SHOWN = {"views": "value", "visitors": "visitors_today"}
SUFFIX = {"views": "", "visitors": " today"}
MAX_LABEL_LENGTH = 64


def badge_choices(request: HttpRequest) -> tuple[str, str]:
    """`show` and `label` (empty: the counter's title) from the query; InvalidInput if they do not fit."""
    query = query_params(request, "show", "label")
    show = query.get("show", "views")
    if show not in SHOWN:
        raise InvalidInput(f"show is one of {', '.join(SHOWN)}.")
    label = badge_text(query.get("label", ""))
    if len(label) > MAX_LABEL_LENGTH:
        raise InvalidInput(f"A badge label is at most {MAX_LABEL_LENGTH} characters.")
    return show, label


def shown_value(state: CounterState, show: str) -> str:
    """The number a badge shows, as text; InvalidInput if this counter has none of that kind."""
    number = getattr(state, SHOWN[show], None)
    if number is None or (show == "visitors" and state.kind != "views"):
        raise InvalidInput(f"{state.name} is a counter of {state.kind}: it has no {show} to show.")
    return f"{number:,}{SUFFIX[show]}"


def default_label(state: CounterState) -> str:
    """The counter's title (or name), shortened to fit a badge."""
    title = badge_text(state.title) or state.name
    return title if len(title) <= MAX_LABEL_LENGTH else title[: MAX_LABEL_LENGTH - 1] + "…"


@no_voter_cookie
@json_api("GET", "HEAD")
def badge(request: HttpRequest, name: str) -> HttpResponse:
    """The badge of one counter; a GET counts a view first if the counter opted in (HEAD never counts)."""
    show, label = badge_choices(request)
    refuse_hidden(request, name)
    state = services.badge_fetch(name=name, count=request.method == "GET", client=client_of(request))
    if show == "visitors":
        state = selectors.with_visitors_today([state])[0]
    svg = draw_badge(label=label or default_label(state), value=shown_value(state, show))
    response = HttpResponse(svg, content_type="image/svg+xml; charset=utf-8")
    response["ETag"] = f'"{hashlib.sha256(svg.encode()).hexdigest()[:32]}"'
    patch_cache_control(response, public=True, no_cache=True)
    # Pages of any origin may show it, even those that only load resources that say so (COEP).
    response["Cross-Origin-Resource-Policy"] = "cross-origin"
    return get_conditional_response(request, etag=response["ETag"], response=response)
