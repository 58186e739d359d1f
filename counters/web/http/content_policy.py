"""Content-Security-Policy through django-csp, admitting websockets to the page's own host."""

from __future__ import annotations

from csp.constants import HEADER
from csp.middleware import CheckableLazyObject, CSPMiddleware, PolicyParts
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase

CONNECT_SRC = "connect-src"
# What a view can do to its own policy (django-csp's decorators and nonce); such answers are built afresh.
PER_RESPONSE = tuple(
    f"_csp_{part}{mode}" for part in ("config", "update", "replace", "exempt") for mode in ("", "_ro")
)
# Hosts whose policy is kept; ALLOWED_HOSTS admits only a few, but a wildcard entry could admit many.
KEEP_HOSTS = 64


class WebsocketHostCSPMiddleware(CSPMiddleware):
    """django-csp's middleware, adding ws:// and wss:// of the request's host to connect-src."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._by_host: dict[str, str] = {}
        # The settings the kept headers were built from: others (override_settings) start afresh.
        self._built_from: object = None

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        """Set the policy, built once per host for answers that leave it as configured.

        Why: django-csp builds the same header string for every answer (and deep-copies its parts to do
        so); that was about a tenth of the site's CPU per view beacon (`python -m bench profile`).
        """
        host = self._plain_host(request, response)
        if host is None:
            return super().process_response(request, response)
        policy = getattr(settings, "CONTENT_SECURITY_POLICY", None)
        if policy is not self._built_from:
            self._by_host, self._built_from = {}, policy
        header = self._by_host.get(host)
        if header is None:
            response = super().process_response(request, response)
            if HEADER in response:
                if len(self._by_host) >= KEEP_HOSTS:
                    self._by_host.clear()
                self._by_host[host] = response[HEADER]
            return response
        response[HEADER] = header
        # As django-csp does once the header is written: a nonce asked for later is an error, not lost.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response

    @staticmethod
    def _plain_host(request: HttpRequest, response: HttpResponseBase) -> str | None:
        """The host, if this answer's policy is the configured one for it; else None (build it afresh)."""
        if (
            settings.DEBUG
            or getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None)
            or (getattr(settings, "CONTENT_SECURITY_POLICY", None) or {}).get("EXCLUDE_URL_PREFIXES")
            or getattr(request, "_csp_nonce", None) is not None
            or HEADER in response
            or any(hasattr(response, name) for name in PER_RESPONSE)
        ):
            return None
        try:
            return request.get_host()
        except DisallowedHost:
            return None

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
