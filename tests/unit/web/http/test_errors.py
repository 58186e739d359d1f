"""web/http/errors.py: one table gives every error its status and code, for the API and pages alike."""

from __future__ import annotations

import json

import pytest
from django.http import Http404
from django.test import RequestFactory

from counters import exceptions as e
from counters.web.http.errors import answer_for, respond_to_error


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (e.InvalidInput("x"), 400, "invalid"),
        (e.UnknownCounter("x"), 404, "not_found"),
        (e.VersionConflict("x"), 409, "version_conflict"),
        (e.PollClosed("x"), 409, "poll_closed"),
        (e.IdempotencyKeyReused("x"), 409, "idempotency_key_reused"),
        (e.Conflict("x"), 409, "conflict"),
        (e.TooLarge("x"), 413, "too_large"),
        (e.RateLimited("x", retry_after=3), 429, "rate_limited"),
        (e.StoreUnavailable("x"), 503, "store_unavailable"),
        (e.OutcomeUnknown("x"), 503, "outcome_unknown"),
        (e.CounterError("x"), 400, "error"),
        (Http404("x"), 404, "not_found"),
        (RuntimeError("x"), 500, "server_error"),
    ],
)
def test_each_error_has_one_answer(error, status, code):
    answer = answer_for(error)
    assert (answer.status, answer.code) == (status, code)


def test_api_answer_carries_the_detail_and_retry_after():
    request = RequestFactory().get("/api/counters/x")
    response = respond_to_error(request, e.RateLimited("Slow down.", retry_after=7))
    assert response.status_code == 429 and response["Retry-After"] == "7"
    assert json.loads(response.content) == {"error": "rate_limited", "detail": "Slow down."}


@pytest.mark.django_db
def test_page_answer_is_a_readable_page_with_the_same_status():
    request = RequestFactory().get("/pages/x/")
    response = respond_to_error(request, e.StoreUnavailable("The store is down."))
    assert response.status_code == 503
    assert "The store is down." in response.content.decode()
    assert "application/json" not in response["Content-Type"]
