"""Who sent a request, as unique-visitor counting needs it: address and user agent, never kept."""

from __future__ import annotations

from django.http import HttpRequest

from counters.domain.visitors import Client
from counters.web.ratelimit import client_ip


def client_of(request: HttpRequest) -> Client:
    """The request's client address (through our own proxies, as the vote rate limit sees it) and agent."""
    return Client(address=client_ip(request), user_agent=request.META.get("HTTP_USER_AGENT", ""))
