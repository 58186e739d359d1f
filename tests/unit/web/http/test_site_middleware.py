"""SitePagesMiddleware: every successful HTML GET counts by its path, with no registration."""

from __future__ import annotations

import time

import pytest

from counters.background.tally_writer import tally_writer
from counters.domain.page_rules import page_name
from counters.domain.visitors import visit_day

URLS = "tests.support.site_pages_urls"


@pytest.fixture
def site(settings, memory_demo_store):
    settings.ROOT_URLCONF = URLS
    settings.COUNTERS_SITE_PAGES = True
    return memory_demo_store


def pages(store) -> dict[str, int]:
    """Counters created at their first view (their description is their path), by path."""
    states = store.list_counters()
    return {state.description: state.value for state in states if state.description.startswith("/")}


def test_a_plain_view_counts_by_its_path_titled_from_the_page(site, client):
    assert client.get("/guide/intro/?ref=x").status_code == 200
    assert client.get("/guide/intro/").status_code == 200
    state = site.get(page_name("/guide/intro"))
    assert (state.value, state.title, state.description) == (2, "Intro & setup", "/guide/intro")


def test_admin_static_api_errors_and_other_answers_never_count(site, client):
    assert client.get("/admin/login/").status_code == 200
    client.get("/static/counters/site.js")
    assert client.get("/guide/missing/").status_code == 404
    assert client.get("/guide/data/").status_code == 200
    assert client.get("/nowhere/").status_code == 404
    assert client.head("/guide/intro/").status_code == 200
    client.get("/api/counters")
    assert pages(site) == {}


def test_views_that_count_themselves_count_once(site, client):
    before = site.get("welcome").value
    client.get("/pages/welcome/")
    assert site.get("welcome").value == before + 1
    assert pages(site) == {}


def test_off_by_default(settings, memory_demo_store, client):
    settings.ROOT_URLCONF = URLS
    client.get("/guide/intro/")
    assert pages(memory_demo_store) == {}


def test_the_cap_bounds_new_pages_and_they_still_render(site, settings, client, caplog):
    settings.COUNTERS_SITE_MAX_PAGES = 2
    answers = [client.get(f"/guide/chapters/{number}/").status_code for number in range(5)]
    assert answers == [200] * 5
    assert sorted(pages(site)) == ["/guide/chapters/0", "/guide/chapters/1"]
    assert site.page_budget().refused == 3
    assert "cap of 2 pages" in caplog.text
    client.get("/guide/chapters/1/")
    assert pages(site)["/guide/chapters/1"] == 2  # pages created before the cap keep counting


def test_exclude_and_include_patterns(site, settings, client):
    settings.COUNTERS_SITE_EXCLUDE = [r"^/guide/chapters/1"]
    settings.COUNTERS_SITE_INCLUDE = [r"^/guide/"]
    for number in (1, 2):
        client.get(f"/guide/chapters/{number}/")
    assert sorted(pages(site)) == ["/guide/chapters/2"]


def test_sources_and_top_pages_are_tallied_per_day(site, client):
    client.get("/guide/intro/", HTTP_REFERER="https://www.example.org/list?q=1")
    client.get("/guide/intro/?utm_source=Newsletter", HTTP_REFERER="https://example.org/")
    client.get("/guide/intro/", HTTP_REFERER="http://testserver/pages/welcome/")  # its own site: no source
    client.get("/guide/intro/", HTTP_REFERER="not a url")  # malformed: counted, with no source
    tally_writer().flush()
    day = visit_day(time.time()).key
    name = page_name("/guide/intro")
    assert site.read_tally(f"sources:{name}", first_day=day, last_day=day) == {
        (day, "example.org"): 1,
        (day, "utm:newsletter"): 1,
    }
    assert site.read_tally("sources:_site", first_day=day, last_day=day)[(day, "example.org")] == 1
    assert site.read_tally("pages", first_day=day, last_day=day) == {(day, name): 4}
