"""Endpoints for operators: /healthz (the process lives), /readyz (it can serve), /metrics (Prometheus).

None of them counts a view, asks for a voter or touches the session, so none sets a cookie; probes
and scrapes come every few seconds, so their answers are never cached on the way.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache

from counters import conf
from counters.metrics import CONTENT_TYPE, metrics
from counters.selectors.readiness import readiness_probes, unready_parts
from counters.web.http.errors import FORBIDDEN, NOT_FOUND, Answer, respond
from counters.web.http.methods import allow_methods
from counters.web.http.voters import no_voter_cookie

NOT_READY = Answer(503, "not_ready", "Not ready", "A part this site needs does not answer.")
# A load balancer probes again soon anyway; this only tells other clients when to.
READY_RETRY_AFTER = 5


def operator_view(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """GET or HEAD only (any other method a JSON 405), never cached, never carrying the voter cookie."""
    return no_voter_cookie(never_cache(allow_methods("GET", "HEAD", as_json=True)(view)))


@operator_view
def healthz(request: HttpRequest) -> HttpResponse:
    """Say the process lives and answers HTTP; no I/O, so a slow store never fails it."""
    return JsonResponse({"status": "ok"})


@operator_view
def readyz(request: HttpRequest) -> HttpResponse:
    """Say whether the store and Redis answer; 503 naming each part that does not."""
    down = unready_parts(readiness_probes(), timeout=conf.ready_timeout())
    if not down:
        return JsonResponse({"status": "ready"})
    for part in down:
        metrics().unready.labels(part).inc()
    detail = "Not ready: " + "; ".join(f"{part} ({why})" for part, why in down.items()) + "."
    return respond(request, NOT_READY, detail=detail, retry_after=READY_RETRY_AFTER, as_json=True)


@operator_view
def prometheus(request: HttpRequest) -> HttpResponse:
    """Every metric of every worker, for a scrape bearing COUNTERS_METRICS_TOKEN; 404 when none is set."""
    token = conf.metrics_token()
    if not token:
        return respond(request, NOT_FOUND, as_json=True)
    if not bearer_matches(request, token):
        response = respond(
            request, FORBIDDEN, detail="Send the metrics token as `Authorization: Bearer ...`.", as_json=True
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(metrics().exposition(), content_type=CONTENT_TYPE)


def bearer_matches(request: HttpRequest, token: str) -> bool:
    """Whether the request's Authorization header carries `token` (compared in constant time)."""
    scheme, _, sent = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(sent.strip().encode(), token.encode())
