"""The session a websocket's cookie names, read only: who the socket's user is, nothing ever saved.

channels' SessionMiddleware wraps `send` to save a changed session when the socket is accepted; a live
socket never changes its session, and a wrapped `send` hides daphne's own from the fan-out, which then
cannot write its frames encoded once (wire.py). So the stack here is channels' own, less that wrapper.
"""

from __future__ import annotations

from importlib import import_module

from channels.auth import AuthMiddleware
from channels.sessions import CookieMiddleware
from django.conf import settings


class ReadOnlySessionMiddleware:
    """Put the session named by the socket's cookie in its scope, passing `send` through untouched."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive, send):
        """Hand the inner application the scope with its session (loaded lazily, on first use)."""
        engine = import_module(settings.SESSION_ENGINE)
        session = engine.SessionStore(session_key=scope["cookies"].get(settings.SESSION_COOKIE_NAME))
        return await self.inner(dict(scope, session=session), receive, send)


def user_of_session(inner):
    """channels' AuthMiddlewareStack, with the session read only: `scope["user"]` for the socket."""
    return CookieMiddleware(ReadOnlySessionMiddleware(AuthMiddleware(inner)))
