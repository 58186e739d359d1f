"""A 404 a visitor understands: a readable page for an unknown page, JSON under /api/, and no cookie."""

from __future__ import annotations

import logging

import pytest
from django.http import Http404, HttpResponse
from django.test import Client, RequestFactory

from counters.web.views.counting import count_view

BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"


@pytest.mark.parametrize("path", ["/pages/no-such-page/", "/pages/language/", "/no-such-place/"])
def test_an_unknown_page_reads_as_page_not_found_and_sets_no_cookie(memory_demo_store, path):
    response = Client(HTTP_USER_AGENT=BROWSER).get(path)
    html = response.content.decode()
    assert response.status_code == 404
    assert '<h1 id="error-title">Page not found</h1>' in html and "Back to the dashboard" in html
    assert "There is no page at" in html and "counter named" not in html
    assert response.cookies == {}, "an unknown page sets no cookie (csrftoken, voter)"
    assert "Set-Cookie" not in response.headers


def test_an_unknown_demo_page_names_its_own_address(memory_demo_store):
    html = Client(HTTP_USER_AGENT=BROWSER).get("/pages/no-such-page/").content.decode()
    assert "There is no page at /pages/no-such-page/. The dashboard lists every page of this site." in html


def test_a_known_page_still_sets_its_csrf_cookie(memory_demo_store):
    response = Client(HTTP_USER_AGENT=BROWSER).get("/pages/welcome/")
    assert response.status_code == 200 and "csrftoken" in response.cookies


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        ("/api/counters/no-such-counter", "There is no counter named 'no-such-counter'."),
        ("/api/no-such-endpoint", "There is no page at this address. The dashboard lists every page."),
    ],
)
def test_the_api_answers_json(memory_demo_store, path, detail):
    response = Client().get(path)
    assert response.status_code == 404
    assert response.json() == {"error": "not_found", "detail": detail}
    assert response.cookies == {}


def test_a_fixed_name_nobody_registered_tells_the_developer_how(memory_store, caplog):
    @count_view("about")
    def about(request):
        return HttpResponse("about")

    request = RequestFactory().get("/about/", HTTP_USER_AGENT=BROWSER)
    with caplog.at_level(logging.WARNING, logger="counters.web.views.counting"), pytest.raises(Http404):
        about(request)
    assert "python manage.py counters_register about" in caplog.text
