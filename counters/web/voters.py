"""Who is voting: a logged-in user, or an anonymous voter known by a signed cookie."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from counters import conf

COOKIE_SALT = "counters.voter"
COOKIE_MAX_AGE = 365 * 24 * 3600


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


def remember_voter(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Set the signed voter cookie on a response if this request minted a new anonymous voter."""
    if getattr(request, "_counters_voter_new", False):
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
    """Mark a view that has no use for the voter (a view beacon): it mints no cookie and reads no user."""
    view.counters_no_voter = True  # type: ignore[attr-defined]
    return view


class VoterMiddleware:
    """Give every visitor a signed anonymous voter cookie on first visit."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def process_view(self, request: HttpRequest, view: Callable, args: tuple, kwargs: dict) -> None:
        """Note a view marked `no_voter_cookie`, so the answer skips the voter."""
        if getattr(view, "counters_no_voter", False):
            request._counters_no_voter = True

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if getattr(request, "_counters_no_voter", False):
            # Why: a beacon is sent by a page that has set the cookie already, or by a cached or foreign
            # page that never votes; asking who the user is would load the session on every view counted.
            return response
        # Only anonymous visitors need the cookie; static files pass through untouched.
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            voter_for(request)
        return remember_voter(request, response)
