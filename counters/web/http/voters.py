"""Who is voting: a user, or an anonymous voter known by a signed cookie set only where a vote can happen."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from counters import conf

COOKIE_SALT = "counters.voter"
COOKIE_MAX_AGE = 365 * 24 * 3600
# Only these content types are pages a vote can start from; any other safe answer keeps no new voter.
PAGE_TYPES = ("text/html",)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def voter_for(request: HttpRequest) -> str:
    """The voter id of a request (`user:<pk>` or `anon:<hex>`), minting an anonymous one if needed."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    anonymous = getattr(request, "_counters_voter", None)
    if anonymous is None:
        # A forged or tampered cookie fails the signature and is simply replaced.
        anonymous = request.get_signed_cookie(conf.voter_cookie(), default=None, salt=COOKIE_SALT)
        if not anonymous or not anonymous.startswith("anon:"):
            anonymous = f"anon:{uuid.uuid4().hex}"
            request._counters_voter_new = True
        request._counters_voter = anonymous
    return anonymous


def voter_is_new(request: HttpRequest) -> bool:
    """Whether the request's voter was minted for it (no voter cookie, not signed in), after `voter_for`."""
    return bool(getattr(request, "_counters_voter_new", False))


def become_voter(request: HttpRequest, voter: str) -> None:
    """Answer a request whose voter was minted for it as the anonymous `voter`, with that voter's cookie."""
    request._counters_voter = voter
    request._counters_voter_new = True


def is_staff(request: HttpRequest) -> bool:
    """Whether the asker is an active staff member (who sees every poll's totals)."""
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_active and user.is_staff)


def keeps_voter(request: HttpRequest, response: HttpResponse) -> bool:
    """Whether a response keeps the voter this request minted: a vote's answer or a page, not a refusal."""
    if not getattr(request, "_counters_voter_new", False) or response.status_code >= 400:
        return False
    if request.method not in SAFE_METHODS:
        return True
    # Why pages: tabs opened from one page then vote as one voter. A JSON read by a visitor without the
    # cookie has no choice to show, so the id it minted is worth nothing kept.
    return response.get("Content-Type", "").startswith(PAGE_TYPES)


def remember_voter(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Set the signed voter cookie on a response that should carry the voter this request minted."""
    if keeps_voter(request, response):
        response.set_signed_cookie(
            conf.voter_cookie(),
            request._counters_voter,
            salt=COOKIE_SALT,
            max_age=COOKIE_MAX_AGE,
            httponly=True,
            samesite="Lax",
            secure=request.is_secure(),
        )
    request._counters_voter_new = False
    return response


def no_voter_cookie(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Mark a view that has no use for the voter (a view beacon): it never sets the voter cookie."""
    view.counters_no_voter = True  # type: ignore[attr-defined]
    return view


class VoterMiddleware:
    """Set the signed anonymous voter cookie when a view asked for the voter and its answer is one to keep."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def process_view(self, request: HttpRequest, view: Callable, args: tuple, kwargs: dict) -> None:
        """Note a view marked `no_voter_cookie`, so its answer never carries the voter."""
        if getattr(view, "counters_no_voter", False):
            request._counters_no_voter = True

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if getattr(request, "_counters_no_voter", False):
            return response
        # Why lazily: only views that show a poll or take a vote ask for the voter (`voter_for`); badges,
        # the API's reads, CSV and errors never do, so they set no cookie and read no session.
        return remember_voter(request, response)
