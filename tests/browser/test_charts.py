"""The dashboard's charts in a real Chromium: sparklines, the history chart and poll bars; a screenshot."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import requests
from playwright.sync_api import sync_playwright

from counters.background.history_writer import HistoryRecorder
from counters.store import get_store
from tests.support.browser import launch
from tests.support.processes import PROJECT_DIR, SiteProcess
from tests.support.site import site_env_for
from tests.support.timing import wait_until

ARTIFACTS = PROJECT_DIR / "test-artifacts"
# Views of `welcome` written straight into its history: minutes ago -> views.
PAST_VIEWS = {2: 3, 9: 5, 17: 8, 26: 4, 38: 9, 51: 6, 30 * 60: 11, 44 * 60: 7}
LIVE_VIEWS = 4


# Counts the answers from URLs holding the given text once the page has parsed their bodies, one task
# after the parse: by then every callback the page's own code chained on the answer has run.
HANDLED = """
(() => {
  window.answersHandled = 0;
  const parseJson = Response.prototype.json;
  Response.prototype.json = function () {
    const parsed = parseJson.call(this);
    if (this.url.includes("%s")) {
      const done = () => setTimeout(() => { window.answersHandled += 1; }, 0);
      parsed.then(done, done);
    }
    return parsed;
  };
})();
"""


def seed_history(now: float) -> None:
    """Write past views of `welcome` the way the batcher would have."""
    recorder = HistoryRecorder(get_store())
    for minutes, views in PAST_VIEWS.items():
        recorder.record(name="welcome", count=views, at=now - minutes * 60)
    recorder.flush()


def attribute(page, selector: str, name: str) -> str | None:
    return page.get_attribute(selector, name)


def vertices(page, selector: str) -> int:
    """How many points a drawn polyline has."""
    return page.eval_on_selector(selector, "line => line.points.numberOfItems")


@pytest.mark.browser
@pytest.mark.processes
def test_dashboard_draws_history_and_poll_charts(demo_store, dynamodb_local, tmp_path):
    seed_history(time.time())
    for option, votes in {"python": 6, "go": 3}.items():
        for _ in range(votes):
            demo_store.increment(f"language.{option}", kind="votes")
    last_hour = sum(views for minutes, views in PAST_VIEWS.items() if minutes < 60) + LIVE_VIEWS
    two_days = sum(PAST_VIEWS.values()) + LIVE_VIEWS
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site:
        for _ in range(LIVE_VIEWS):
            requests.get(f"{site.url}/pages/welcome/", timeout=10).raise_for_status()
        history_url = f"{site.url}/api/counters/welcome/history?window=1h"
        wait_until(
            lambda: requests.get(history_url, timeout=10).json()["total"] == last_hour,
            "the site's batcher to write the views",
            timeout=15,
            poll=0.2,
        )
        # Every page but the dashboard, whose own loads are not traffic and have no row.
        pages = [s.name for s in demo_store.list_counters() if s.kind == "views" and s.name != "dashboard"]
        with sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                page = browser.new_page(viewport={"width": 1100, "height": 1600})
                errors: list[str] = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                page.goto(f"{site.url}/")
                page.select_option("#history-counter", "welcome")
                page.click('#history-ranges label:text-is("48 h")')
                page.wait_for_selector(f'#history-chart[data-total="{two_days}"]')
                for name in pages:
                    page.wait_for_selector(f'svg[data-sparkline="{name}"][data-points]')
                    assert attribute(page, f'svg[data-sparkline="{name}"]', "data-points") == "60"
                assert vertices(page, 'svg[data-sparkline="welcome"] polyline') == 60
                assert attribute(page, 'svg[data-sparkline="welcome"]', "data-total") == str(last_hour)
                assert attribute(page, 'svg[data-sparkline="docs"]', "data-total") == "0"
                # 48 h by the hour: one column per hour that had views.
                assert attribute(page, "#history-chart", "data-points") == "48"
                hourly = f"{site.url}/api/counters/welcome/history?window=48h&step=1h"
                points = requests.get(hourly, timeout=10).json()["points"]
                busy_hours = sum(1 for point in points if point["count"])
                assert page.locator("#history-chart rect.col").count() == busy_hours
                summary = page.inner_text("#history-summary")
                assert f"Welcome: {two_days} views in the last 48 hours" in summary
                # Poll results as bars: one per option, in the option's own row, with its share.
                assert page.locator('[data-poll="language"] rect[data-bar]').count() == 4
                assert page.locator('[data-poll="deploy"] rect[data-bar]').count() == 3
                python = float(attribute(page, 'rect[data-bar="language.python"]', "width").rstrip("%"))
                go = float(attribute(page, 'rect[data-bar="language.go"]', "width").rstrip("%"))
                rust = float(attribute(page, 'rect[data-bar="language.rust"]', "width").rstrip("%"))
                assert python == pytest.approx(2 * go, abs=0.02) and rust == 0
                assert page.inner_text('[data-share="language.python"]') == "67%"
                ARTIFACTS.mkdir(exist_ok=True)
                shot = Path(ARTIFACTS / "dashboard-charts.png")
                page.screenshot(path=str(shot), full_page=True)
                assert shot.stat().st_size > 10_000
                assert errors == []
            finally:
                browser.close()


@pytest.mark.browser
@pytest.mark.processes
def test_a_late_answer_for_the_previous_choice_does_not_replace_the_chosen_chart(
    demo_store, dynamodb_local, tmp_path
):
    seed_history(time.time())
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site, sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page()
            held = []
            # Hold the answer for the page shown first, so it arrives after the one chosen next.
            page.route(
                # The page chart's history only (the whole site's chart has its own).
                lambda url: "/api/counters/" in url and "window=24h" in url and "/docs/" not in url,
                lambda route: held.append(route),
            )
            page.add_init_script(HANDLED % "/welcome/history")
            page.goto(f"{site.url}/")
            first = page.input_value("#history-counter")
            assert first == "welcome" and len(held) == 1, "it opens on the busiest page"
            page.select_option("#history-counter", "docs")
            page.wait_for_selector('#history-chart[data-total="0"]')
            with page.expect_response(lambda response: f"/{first}/history" in response.url):
                held[0].continue_()
            page.wait_for_function("window.answersHandled >= 1")  # the page's code is done with it
            assert page.get_attribute("#history-chart", "data-total") == "0"
            assert page.inner_text("#history-summary") == "No views of Documentation in the last 24 hours."
        finally:
            browser.close()
