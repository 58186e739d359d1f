"""Counted pages and the JSON API through Django's test client, on the in-process store; that a refused
page writes no item, on DynamoDB Local."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from counters.web.http import errors


def item_count(store) -> int:
    """How many items the table holds (a test-only Scan)."""
    return store.retrying.scan(TableName=store.table, Select="COUNT")["Count"]


@pytest.mark.django_db
def test_page_view_raises_its_counter_by_one(client, memory_demo_store):
    before = memory_demo_store.get("welcome").value
    response = client.get("/pages/welcome/")
    assert response.status_code == 200
    assert memory_demo_store.get("welcome").value == before + 1
    assert f'data-counter="welcome" data-version="1">{before + 1}<' in response.content.decode()


@pytest.mark.django_db
def test_carried_over_page_starts_from_its_start_value(client, memory_demo_store):
    client.get("/pages/pricing/")
    assert memory_demo_store.get("pricing").value == 1001


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["nope", "Welcome", "a" * 65, "wel%2Fcome", "..", "welcome.x"])
def test_unknown_or_invalid_slug_is_404_and_writes_nothing(client, demo_store, slug):
    before = item_count(demo_store)
    assert client.get(f"/pages/{slug}/").status_code == 404
    response = client.post(f"/api/views/{slug}")
    assert response.status_code in (400, 404)
    assert set(response.json()) == {"error", "detail"}
    assert item_count(demo_store) == before


@pytest.mark.django_db
def test_dashboard_lists_counters_and_counts_itself(client, memory_demo_store):
    response = client.get("/")
    html = response.content.decode()
    assert response.status_code == 200
    assert memory_demo_store.get("dashboard").value == 1
    for slug in ("welcome", "pricing", "docs"):
        assert f'href="/pages/{slug}/"' in html
    assert 'href="/pages/dashboard/"' not in html
    assert "Which language do you reach for first?" in html


@pytest.mark.django_db
def test_a_poll_kept_off_the_dashboard_is_not_listed_there_but_keeps_its_own_page(client, memory_demo_store):
    memory_demo_store.set_poll_unlisted("language", unlisted=True)
    html = client.get("/").content.decode()
    assert "Which language do you reach for first?" not in html
    assert 'data-poll="deploy"' in html
    code = memory_demo_store.get_poll("language").code
    assert "Which language do you reach for first?" in client.get(f"/p/{code}").content.decode()
    polls = client.get("/api/polls").json()["polls"]
    assert {p["id"]: p["dashboard"] for p in polls} == {"deploy": True, "language": False}


@pytest.mark.django_db
def test_dashboard_counter_has_no_page_of_its_own(client, memory_demo_store):
    response = client.get("/pages/dashboard/")
    assert (response.status_code, response["Location"]) == (302, "/")
    assert client.post("/pages/dashboard/").status_code == 405
    assert memory_demo_store.get("dashboard").value == 0


@pytest.mark.django_db
def test_view_beacon_counts_one_view(memory_demo_store):
    from django.test import Client

    csrf_client = Client(enforce_csrf_checks=True)
    assert csrf_client.post("/api/views/docs").status_code == 403
    csrf_client.get("/pages/welcome/")
    token = csrf_client.cookies["csrftoken"].value
    response = csrf_client.post("/api/views/docs", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200
    assert response.json()["value"] == 1
    assert memory_demo_store.get("docs").value == 1


@pytest.mark.django_db
def test_api_lists_and_reads_counters(client, memory_demo_store):
    client.get("/pages/docs/")
    listed = client.get("/api/counters").json()["counters"]
    by_name = {entry["name"]: entry for entry in listed}
    assert by_name["docs"]["value"] == 1 and by_name["docs"]["kind"] == "views"
    assert by_name["language.python"]["kind"] == "votes"
    one = client.get("/api/counters/docs").json()
    assert (one["name"], one["value"], one["version"]) == ("docs", 1, 1)
    missing = client.get("/api/counters/ghost")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    assert client.get("/api/counters/BAD!").status_code == 400
    assert client.delete("/api/counters").status_code == 405


@pytest.mark.django_db
def test_api_lists_polls_with_totals(client, memory_demo_store):
    polls = {poll["id"]: poll for poll in client.get("/api/polls").json()["polls"]}
    assert set(polls) == {"language", "deploy"}
    assert [o["id"] for o in polls["deploy"]["options"]] == ["aws", "own-servers", "paas"]
    assert polls["deploy"]["total"] == 0


def test_unknown_api_path_is_json_404(client):
    response = client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


@pytest.mark.django_db
def test_dashboard_of_a_table_without_demo_content_renders_uncounted(client, memory_store):
    """`counters_init --no-demo` registers nothing, not even `dashboard`: the page still opens."""
    response = client.get("/")
    assert response.status_code == 200
    assert memory_store.counter_names() == []


def test_a_server_error_is_a_styled_page_without_the_live_script():
    response = errors.server_error(RequestFactory().get("/somewhere/"))
    html = response.content.decode()
    assert response.status_code == 500
    assert '<p class="error-code">500</p>' in html and "Back to the dashboard" in html
    assert "/static/counters/counters.css" in html and 'class="skip-link"' in html
    assert "live.js" not in html, "an error page opens no websocket"
