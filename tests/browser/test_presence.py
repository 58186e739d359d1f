"""Viewing now in a real Chromium: tabs of a page and of the dashboard see each other come and go."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import chromium, screenshot
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for

WAIT_MS = 10_000


def viewing(page: Page, name: str):
    return page.locator(f'[data-viewing="{name}"]').first


@pytest.mark.browser
@pytest.mark.processes
def test_tabs_of_a_page_and_of_the_dashboard_are_counted_live(demo_store, dynamodb_local, tmp_path):
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site, chromium() as browser:
        context = browser.new_context(viewport={"width": 1000, "height": 800})
        boards = [context.new_page() for _ in range(3)]
        for board in boards:
            board.goto(f"{site.url}/")
        for board in boards:
            # The headline number "Dashboards open": the dashboard has no row of its own.
            expect(viewing(board, "dashboard")).to_have_text("3", timeout=WAIT_MS)
        expect(viewing(boards[0], "welcome")).to_be_hidden()  # nobody on that page yet

        reader = context.new_page()
        reader.goto(f"{site.url}/pages/welcome/")
        expect(viewing(reader, "welcome")).to_have_text("1 person viewing", timeout=WAIT_MS)
        second = context.new_page()
        second.goto(f"{site.url}/pages/welcome/")
        for page in (reader, second):
            expect(viewing(page, "welcome")).to_have_text("2 people viewing", timeout=WAIT_MS)
        expect(viewing(boards[0], "welcome")).to_have_text("2 viewing", timeout=WAIT_MS)
        screenshot(boards[0], "presence-dashboard.png")
        screenshot(reader, "presence-page.png")

        second.close()
        boards[2].close()
        expect(viewing(reader, "welcome")).to_have_text("1 person viewing", timeout=WAIT_MS)
        expect(viewing(boards[0], "dashboard")).to_have_text("2", timeout=WAIT_MS)
        expect(viewing(boards[0], "welcome")).to_have_text("1 viewing", timeout=WAIT_MS)
        context.close()
    assert "Traceback" not in site.log_text()
