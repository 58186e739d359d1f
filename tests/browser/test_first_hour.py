"""A first hour on the demo site in Chromium at 390 and 1280 px: the chart says plainly that no page is
viewed yet (then opens on the page that is), and an unknown page reads as "Page not found", sets no
cookie and passes axe."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from counters.background.history_writer import HistoryRecorder
from tests.support.browser import axe_violations, chromium, screenshot, sideways_overflow
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for, unreachable_store_env

QUIET = "No page has been viewed today yet: the chart fills in as pages are viewed."
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}


def assert_opens_on_views_or_says_none(page) -> None:
    """The chart's first page has views in its range, or the page says that no page has any yet."""
    page.wait_for_selector("#history-chart[data-points]")
    summary = page.inner_text("#history-summary")
    if page.locator("#history-quiet").count() == 0:
        assert not summary.startswith("No views of"), summary


@pytest.mark.browser
@pytest.mark.processes
def test_the_chart_and_the_404_at_both_widths(demo_store, dynamodb_local, tmp_path):
    # Headless Chromium's views count as a bot's, apart: no page gets views until the test writes some.
    env = site_env_for(demo_store, dynamodb_local, tmp_path, COUNTERS_COUNT_BOTS_APART="true")
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site, chromium() as browser:
        for size, viewport in SIZES.items():
            context = browser.new_context(viewport=viewport, bypass_csp=True)
            page = context.new_page()
            response = page.goto(f"{site.url}/pages/no-such-page/")
            assert response.status == 404
            expect(page.locator("h1")).to_have_text("Page not found")
            expect(page.locator(".error-page")).to_contain_text("There is no page at /pages/no-such-page/.")
            assert context.cookies() == [], "an unknown page sets no cookie"
            assert page.evaluate("getComputedStyle(document.querySelector('.panel')).borderRadius") == "12px"
            assert sideways_overflow(page) <= 0
            assert axe_violations(page) == [], f"axe on the 404 page, {size}"
            screenshot(page, f"first-hour-404-{size}.png")
            page.click("text=Back to the dashboard")
            # Nothing viewed yet, and the page says so.
            expect(page.locator("#history-quiet")).to_have_text(QUIET)
            assert axe_violations(page) == [], f"axe on the dashboard, {size}"
            screenshot(page, f"first-hour-chart-{size}.png")
            context.close()

        recorder = HistoryRecorder(demo_store)
        recorder.record(name="docs", count=4, at=time.time() - 120)
        recorder.flush()
        for viewport in SIZES.values():
            page = browser.new_page(viewport=viewport)
            page.goto(f"{site.url}/")
            assert page.input_value("#history-counter") == "docs"
            expect(page.locator("#history-quiet")).to_have_count(0)
            assert_opens_on_views_or_says_none(page)
            expect(page.locator("#history-summary")).to_contain_text(
                "Documentation: 4 views in the last 24 hours"
            )
            page.close()


@pytest.mark.browser
@pytest.mark.processes
def test_a_wrong_endpoint_is_named_on_the_page_at_both_widths(tmp_path):
    # A typo in DYNAMODB_ENDPOINT_URL: nothing has ever answered there.
    env = unreachable_store_env(tmp_path)
    site = SiteProcess(env=env, log_path=tmp_path / "site.log", ready_path="/healthz")
    with site, chromium() as browser:
        for size, viewport in SIZES.items():
            page = browser.new_context(viewport=viewport, bypass_csp=True).new_page()
            page.goto(f"{site.url}/pages/welcome/")
            notice = page.locator("#counts-unavailable")
            expect(notice).to_contain_text("Check DYNAMODB_ENDPOINT_URL and AWS_REGION")
            expect(notice).not_to_contain_text("catch up")
            expect(page.locator("p.views")).to_have_text(
                "View count unavailable: the counter store is not set up (see above)."
            )
            assert sideways_overflow(page) <= 0
            assert axe_violations(page) == [], f"axe on a page of a misconfigured site, {size}"
            screenshot(page, f"first-hour-misconfigured-{size}.png")
            page.context.close()
    assert "Counter store misconfigured (endpoint http://127.0.0.1:" in site.log_text()
