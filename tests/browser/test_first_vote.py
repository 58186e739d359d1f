"""A first visit in a real Chromium: the voter cookie comes with the poll, and a vote stays the visitor's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.support.browser import chromium
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for
from tests.support.voting import poll_tally

VOTER = "counters_voter"


def voter_cookies(context) -> list[str]:
    """The values of the browser's voter cookies for the site."""
    return [cookie["value"] for cookie in context.cookies() if cookie["name"] == VOTER]


@contextmanager
def first_visit(demo_store, dynamodb_local, tmp_path) -> Iterator[tuple[str, BrowserContext]]:
    """A real site on the demo table, and a Chromium context of its own with no cookies yet."""
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site, chromium() as browser:
        context = browser.new_context()
        try:
            yield site.url, context
        finally:
            context.close()


def open_dashboard(context: BrowserContext, url: str):
    """The dashboard, once its vote buttons are ready."""
    page = context.pages[0] if context.pages else context.new_page()
    page.goto(f"{url}/")
    page.wait_for_selector('[data-poll="language"][data-ready="true"]')
    return page


@pytest.mark.browser
@pytest.mark.processes
def test_first_visit_then_a_vote_keeps_the_choice_marked_after_reload(demo_store, dynamodb_local, tmp_path):
    with first_visit(demo_store, dynamodb_local, tmp_path) as (url, context):
        page = context.new_page()
        # A badge and the API's reads leave no voter cookie behind.
        page.goto(f"{url}/badge/docs.svg")
        page.goto(f"{url}/api/polls")
        assert voter_cookies(context) == []

        page = open_dashboard(context, url)
        first = voter_cookies(context)
        assert len(first) == 1

        choice = page.locator('[data-poll="language"] li[data-option="go"]')
        choice.locator("button").click()
        expect(choice).to_have_class("chosen")
        page.reload()
        expect(page.locator('[data-poll="language"] li[data-option="go"]')).to_have_class("chosen")
        expect(page.locator('[data-poll="language"] li[data-option="go"] .count')).to_have_text("1")
        assert voter_cookies(context) == first
    assert poll_tally(demo_store, "language") == {"python": 0, "go": 1, "rust": 0, "typescript": 0}


@pytest.mark.browser
@pytest.mark.processes
def test_a_vote_without_the_cookie_sets_it_with_the_answer(demo_store, dynamodb_local, tmp_path):
    with first_visit(demo_store, dynamodb_local, tmp_path) as (url, context):
        page = open_dashboard(context, url)
        # As a page served from a cache would be: the CSRF cookie kept, no voter cookie yet.
        context.clear_cookies(name=VOTER)

        with page.expect_response(lambda answer: answer.url.endswith("/vote")) as answer:
            page.locator('[data-poll="language"] li[data-option="rust"] button').click()
        assert answer.value.status == 200 and VOTER in (answer.value.header_value("set-cookie") or "")
        set_by_vote = voter_cookies(context)
        assert len(set_by_vote) == 1
        page.reload()
        expect(page.locator('[data-poll="language"] li[data-option="rust"]')).to_have_class("chosen")
        assert voter_cookies(context) == set_by_vote
    assert poll_tally(demo_store, "language") == {"python": 0, "go": 0, "rust": 1, "typescript": 0}
