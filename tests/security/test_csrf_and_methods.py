"""CSRF on every state change, GET/HEAD-only pages, JSON 400/403 answers: nothing written when refused."""

from __future__ import annotations

import pytest
from django.test import Client, RequestFactory

from counters.web.http.errors import bad_request, permission_denied


@pytest.fixture
def browser() -> Client:
    """A client that, like a browser, is held to the CSRF checks."""
    return Client(enforce_csrf_checks=True)


def test_beacon_without_a_csrf_token_is_a_403_json_and_counts_nothing(memory_demo_store, browser):
    before = memory_demo_store.get("docs").value

    response = browser.post("/api/views/docs")

    assert response.status_code == 403
    assert response.json()["error"] == "csrf_failed"
    assert memory_demo_store.get("docs").value == before


def test_beacon_with_a_wrong_token_is_a_403(memory_demo_store, browser):
    browser.get("/pages/welcome/")
    before = memory_demo_store.get("docs").value

    response = browser.post("/api/views/docs", HTTP_X_CSRFTOKEN="x" * 32)

    assert response.status_code == 403
    assert response.json()["error"] == "csrf_failed"
    assert memory_demo_store.get("docs").value == before


def test_beacon_with_the_cookie_token_in_the_header_counts(memory_demo_store, browser):
    # How this site's pages send it: the `csrftoken` cookie's value in the X-CSRFToken header.
    browser.get("/pages/welcome/")
    token = browser.cookies["csrftoken"].value
    before = memory_demo_store.get("docs").value

    response = browser.post("/api/views/docs", HTTP_X_CSRFTOKEN=token)

    assert response.status_code == 200
    assert response.json()["value"] == before + 1


@pytest.mark.parametrize("path", ["/", "/pages/docs/"])
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete", "options"])
def test_pages_answer_get_and_head_only(memory_demo_store, client, path, method):
    before = {state.name: state.value for state in memory_demo_store.list_counters()}

    response = getattr(client, method)(path)

    assert response.status_code == 405
    assert set(response["Allow"].replace(" ", "").split(",")) == {"GET", "HEAD"}
    assert {state.name: state.value for state in memory_demo_store.list_counters()} == before


@pytest.mark.parametrize("path", ["/", "/pages/docs/", "/healthz", "/readyz", "/metrics", "/api/counters"])
@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_a_wrong_method_is_a_405_before_any_csrf_check(memory_demo_store, browser, path, method):
    before = {state.name: state.value for state in memory_demo_store.list_counters()}

    response = getattr(browser, method)(path)

    assert response.status_code == 405
    assert response["Allow"].startswith("GET")
    if not path.startswith("/pages/") and path != "/":
        assert response.json()["error"] == "method_not_allowed"
    assert {state.name: state.value for state in memory_demo_store.list_counters()} == before


def test_a_post_without_a_token_where_post_is_allowed_is_still_refused(memory_demo_store, browser):
    response = browser.post("/api/polls/language/vote", {"option": "python"})

    assert response.status_code == 403 and response.json()["error"] == "csrf_failed"


def test_head_of_a_page_is_answered_and_not_counted(memory_demo_store, client):
    before = memory_demo_store.get("docs").value

    assert client.head("/pages/docs/").status_code == 200
    assert memory_demo_store.get("docs").value == before


def test_a_disallowed_host_on_the_api_is_a_400_json(memory_demo_store, client):
    response = client.get("/api/counters", HTTP_HOST="evil.example")

    assert response.status_code == 400
    assert response.json() == {"error": "bad_request", "detail": response.json()["detail"]}


def test_a_disallowed_host_on_a_page_is_a_400_page_and_counts_nothing(memory_demo_store, client):
    before = memory_demo_store.get("docs").value

    response = client.get("/pages/docs/", HTTP_HOST="evil.example")

    assert response.status_code == 400
    assert b"Bad request" in response.content
    assert memory_demo_store.get("docs").value == before


@pytest.mark.parametrize(("path", "is_json"), [("/api/counters", True), ("/pages/docs/", False)])
def test_handler403_answers_json_for_the_api_and_a_page_elsewhere(path, is_json):
    response = permission_denied(RequestFactory().get(path))

    assert response.status_code == 403
    assert (response["Content-Type"] == "application/json") is is_json


def test_handler400_never_echoes_the_exception(rf):
    response = bad_request(rf.get("/api/counters"), Exception("secret internals"))

    assert response.status_code == 400
    assert b"secret internals" not in response.content
