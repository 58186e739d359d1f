"""Who sent a request and from where, as counting needs it: address and user agent (never kept), source."""

from __future__ import annotations

from django.http import HttpRequest

from counters.domain.sources import source_of
from counters.domain.visitors import Client
from counters.exceptions import InvalidInput
from counters.web.http.ratelimit import client_ip


def client_of(request: HttpRequest) -> Client:
    """The request's client address (through our own proxies, as the vote rate limit sees it) and agent."""
    return Client(address=client_ip(request), user_agent=request.META.get("HTTP_USER_AGENT", ""))


def source_from(request: HttpRequest) -> str | None:
    """Where a page view came from (a referrer's domain or `utm_source`); None for none or a malformed one."""
    try:
        return source_of(
            referrer=request.META.get("HTTP_REFERER"),
            utm=request.GET.get("utm_source"),
            own_hosts=[request.get_host().rsplit(":", 1)[0]],
        )
    except InvalidInput:
        return None  # a page renders and counts whatever its referrer says
