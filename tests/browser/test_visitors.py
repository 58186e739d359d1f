"""The dashboard shows each page's visitors today next to its views, and their 90-day trend."""

from __future__ import annotations

import time

import pytest
import requests

from counters.domain.visitors import visit_day
from tests.support.browser import chromium, screenshot
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for

# Visitors of `docs` on earlier days, written as the store counts them: days ago -> visitors.
PAST_DAYS = {1: 4, 2: 7, 5: 2, 30: 9}
TODAY = 6
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"


@pytest.mark.browser
@pytest.mark.processes
def test_dashboard_shows_visitors_today_and_their_daily_trend(demo_store, dynamodb_local, tmp_path):
    for days_ago, visitors in PAST_DAYS.items():
        day = visit_day(time.time() - days_ago * 86400)
        for i in range(visitors):
            demo_store.record_visitor("docs", f"{days_ago:04d}{i:060x}", day=day)
    env = site_env_for(demo_store, dynamodb_local, tmp_path, COUNTERS_PROXY_COUNT="1")
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site:
        for i in range(TODAY):
            for _ in range(2):
                headers = {"X-Forwarded-For": f"203.0.113.{i + 1}", "User-Agent": BROWSER}
                requests.get(f"{site.url}/pages/docs/", headers=headers, timeout=10).raise_for_status()
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1100, "height": 1400})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{site.url}/")
            row = page.locator('tr[data-row="docs"]')
            assert row.locator("[data-today-of]").inner_text() == str(2 * TODAY)
            assert row.locator("[data-visitors]").inner_text() == str(TODAY)
            trend = 'svg[data-visitor-trend="docs"]'
            page.wait_for_selector(f"{trend}[data-points]")
            assert page.get_attribute(trend, "data-points") == "90"
            assert page.get_attribute(trend, "data-total") == str(TODAY + sum(PAST_DAYS.values()))
            assert page.locator('tr[data-row="language.go"] [data-visitors]').count() == 0, "votes have none"
            screenshot(page, "dashboard-visitors.png")
            assert errors == []
