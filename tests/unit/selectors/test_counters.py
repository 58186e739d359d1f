"""Counter selectors on the memory store: listing, search, one counter, its resets, a page's title."""

from __future__ import annotations

import pytest

from counters import selectors
from counters.exceptions import InvalidInput, UnknownCounter
from counters.selectors.counters import PAGE_META_CACHE


def names(states) -> list[str]:
    return [state.name for state in states]


def test_counter_list_shows_every_counter_with_its_total(memory_demo_store):
    memory_demo_store.increment("docs", kind="views")
    listed = {state.name: state.value for state in selectors.counter_list()}
    assert listed["docs"] == 1 and listed["pricing"] == 1000
    assert "language.python" in listed


def test_counter_search_matches_name_or_title_in_any_case_and_filters_by_kind(memory_demo_store):
    assert names(selectors.counter_search(query="DOCUMENT")) == ["docs"]
    assert names(selectors.counter_search(query=" pric ")) == ["pricing"]
    assert names(selectors.counter_search(query="deploy", kind="votes")) == [
        "deploy.aws",
        "deploy.own-servers",
        "deploy.paas",
    ]
    assert names(selectors.counter_search(kind="views")) == ["dashboard", "docs", "pricing", "welcome"]
    assert selectors.counter_search(query="deploy", kind="views") == []


def test_counter_get_reads_one_and_refuses_unknown_or_malformed_names(memory_demo_store):
    assert selectors.counter_get(name="language.go").kind == "votes"
    with pytest.raises(UnknownCounter):
        selectors.counter_get(name="ghost")
    with pytest.raises(InvalidInput):
        selectors.counter_get(name="No Such Name")


def test_counter_resets_are_newest_first_and_limited(memory_demo_store):
    version = 0
    for reason in ("first", "second"):
        version = memory_demo_store.reset("docs", expected_version=version, actor="a", reason=reason).version
    assert [r.reason for r in selectors.counter_resets(name="docs")] == ["second", "first"]
    assert [r.reason for r in selectors.counter_resets(name="docs", limit=1)] == ["second"]


def test_page_meta_shows_the_pages_title_and_description(memory_demo_store):
    PAGE_META_CACHE.clear()  # titles are cached per process; another test's store may have filled it
    meta = selectors.page_meta(slug="docs")
    assert (meta.title, meta.description) == ("Documentation", "How the counters work, in short.")
