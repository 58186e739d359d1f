"""Pages of a site: one path per page, valid names for any path, titles, and which paths count."""

from __future__ import annotations

import pytest

from counters.domain.names import validate_slug
from counters.domain.page_rules import PageRules, page_name, page_path, page_title
from counters.exceptions import InvalidInput


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        ("/", "/"),
        ("/docs/", "/docs"),
        ("/docs", "/docs"),
        ("/docs/?a=1#top", "/docs"),
        ("//", "/"),
        ("/a//", "/a"),
    ],
)
def test_one_page_per_path_query_and_trailing_slash_dropped(raw, path):
    assert page_path(raw, max_length=100) == path


@pytest.mark.parametrize(
    "raw", ["", "docs", None, 7, "/a\x00b", "/a\nb", "/a\x7fb", "/a\u0085b", "/" + "a" * 101]
)
def test_unusable_paths_are_refused(raw):
    with pytest.raises(InvalidInput):
        page_path(raw, max_length=100)


def test_names_are_valid_slugs_and_apart_for_every_path_and_host():
    paths = ["/", "/Docs/Intro", "/docs/intro", "/" + "x" * 500, "/ünïcode/页面", "/a-b", "/a_b"]
    names = [page_name(path) for path in paths] + [page_name("/docs/intro", host="docs.example.com")]
    for name in names:
        validate_slug(name)
    assert len(set(names)) == len(names)
    assert page_name("/docs/intro").startswith("docs-intro-")
    assert page_name("/").startswith("home-")


def test_the_title_comes_from_the_page():
    assert page_title(b"<html><head><TITLE lang=en>\n Caf\xc3\xa9 &amp; Co\n</TITLE>") == "Caf\u00e9 & Co"
    assert page_title(b"<p>no title</p>") == ""
    assert len(page_title(b"<title>" + b"x" * 500 + b"</title>")) == 200


def test_rules_never_include_and_exclude():
    rules = PageRules.from_patterns(include=[r"^/docs/", r"^/$"], exclude=[r"/draft"], never=["/admin/"])
    assert rules.counts("/") and rules.counts("/docs/a")
    assert not rules.counts("/blog/a")
    assert not rules.counts("/docs/draft-1")
    assert not PageRules.from_patterns(never=["/admin/"]).counts("/admin")
    assert not PageRules.from_patterns(never=["/admin/"]).counts("/admin/login")
    assert PageRules.from_patterns(never=["/admin/"]).counts("/administration")
