"""Content-Security-Policy through django-csp, admitting websockets to the page's own host."""

from __future__ import annotations

from csp.middleware import CSPMiddleware, PolicyParts
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase

CONNECT_SRC = "connect-src"


class WebsocketHostCSPMiddleware(CSPMiddleware):
    """django-csp's middleware, adding ws:// and wss:// of the request's host to connect-src."""

    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        """The configured policy plus this request's websocket origins."""
        parts = super().get_policy_parts(request, response, report_only)
        try:
            host = request.get_host()
        except DisallowedHost:
            # A rejected Host still gets the policy, just without naming the unknown host.
            return parts
        # CSP Level 3 counts ws/wss of the page's host as 'self', but older browsers do not (the
        # header test pins these sources): named here because a settings dict cannot know the host.
        update = dict(parts.update or {})
        # Keep what a view's @csp_update already added (a string or a sequence of sources).
        earlier = update.get(CONNECT_SRC) or []
        if isinstance(earlier, str):
            earlier = [earlier]
        update[CONNECT_SRC] = [*earlier, f"ws://{host}", f"wss://{host}"]
        parts.update = update
        return parts
