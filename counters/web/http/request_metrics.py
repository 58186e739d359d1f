"""Count every HTTP answer by route name and status, and time it, for the error-rate and latency alerts."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from counters.metrics import metrics

logger = logging.getLogger(__name__)

# Requests no route matched (scanners' guesses) share one label, so their paths never grow the metrics.
UNMATCHED = "unmatched"


def route_name(request: HttpRequest) -> str:
    """The matched route's name (`counters:api-view`), never the path, so the label set stays small."""
    match = getattr(request, "resolver_match", None)
    return (match.view_name or UNMATCHED) if match is not None else UNMATCHED


class RequestMetricsMiddleware:
    """Record each answer's route, status and time; first in MIDDLEWARE, so refusals are counted too."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        began = time.perf_counter()
        response = self.get_response(request)
        try:
            found, view = metrics(), route_name(request)
            found.http_responses.labels(view, str(response.status_code)).inc()
            found.http_seconds.labels(view).observe(time.perf_counter() - began)
        except Exception:
            # A metric is never worth a failed answer.
            logger.warning("Could not record a request's metrics", exc_info=True)
        return response
