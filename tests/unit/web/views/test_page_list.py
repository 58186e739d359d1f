"""The dashboard shows its busiest pages, every page one link away (paged); sparklines in one answer."""

from __future__ import annotations

import re

from counters import services
from counters.domain.page_rules import PageRules, page_path
from counters.domain.values import CounterDefinition
from counters.services.site_pages import never_prefixes
from counters.web.views.pages import TOP_PAGES


def define_pages(store, count: int) -> None:
    for i in range(count):
        store.define_counter(CounterDefinition(name=f"page-{i:03d}", kind="views", title=f"Page {i:03d}"))


def test_the_dashboard_shows_the_busiest_rows_and_links_to_every_page(memory_store, client):
    define_pages(memory_store, TOP_PAGES + 10)
    for _ in range(2):
        services.view_record(slug="page-059")
    html = client.get("/").content.decode()
    rows = re.findall(r'<tr data-row="([^"]+)"', html)
    assert len(rows) == TOP_PAGES and rows[0] == "page-059"
    assert len(re.findall(r'<option value="page-', html)) == TOP_PAGES + 10, "the chart can show any page"
    assert f"Show all <span data-page-count>{TOP_PAGES + 10}</span> pages" in html
    assert "data-all-pages hidden" not in html


def test_a_few_pages_need_no_link_to_more(memory_demo_store, client):
    assert "data-all-pages hidden" in client.get("/").content.decode()


def test_every_page_is_listed_busiest_first_a_page_of_the_list_at_a_time(memory_store, client):
    define_pages(memory_store, TOP_PAGES + 10)
    services.view_record(slug="page-059")
    first = client.get("/site/pages/").content.decode()
    second = client.get("/site/pages/?page=2").content.decode()
    listed = re.findall(r'data-listed="([^"]+)"', first) + re.findall(r'data-listed="([^"]+)"', second)
    assert sorted(listed) == [f"page-{i:03d}" for i in range(TOP_PAGES + 10)]
    assert listed[0] == "page-059" and len(set(listed)) == TOP_PAGES + 10
    assert f"Pages 51–60 of {TOP_PAGES + 10}" in second and 'rel="prev"' in second


def test_sparklines_answer_in_one_request_and_bad_names_are_json_400(memory_demo_store, client):
    body = client.get("/api/sparklines?views=docs,welcome&visitors=docs,_site").json()
    assert [h["name"] for h in body["views"]] == ["docs", "welcome"]
    visitors = [(h["name"], h["series"]) for h in body["visitors"]]
    assert visitors == [("docs", "visitors"), ("_site", "visitors")]
    refused = client.get("/api/sparklines?views=language.go")
    assert refused.status_code == 400 and set(refused.json()) == {"error", "detail"}


def test_the_list_of_pages_is_no_page_of_the_site():
    rules = PageRules.from_patterns(never=never_prefixes())
    assert not rules.counts(page_path("/site/pages/?page=2", max_length=512))
    assert rules.counts(page_path("/site/pages-of-mine/", max_length=512)), "only the list itself"
