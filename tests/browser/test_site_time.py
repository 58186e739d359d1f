"""The dashboard in the site's time zone (not the browser's), with its CSV links, in a real Chromium.

The site runs in St. John's (UTC-3:30: its midnight is no UTC hour) and the browser in Tokyo. A view
at the site's midnight and one twenty minutes before are on two days of the 90-day chart, its
columns and tooltips read the site's dates and times, and the CSV links download what is shown.
"""

from __future__ import annotations

import csv
import io
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from counters.background.history_writer import HistoryRecorder
from counters.domain.clock import day_of
from tests.support.browser import ARTIFACTS, axe_violations, chromium, screenshot, sideways_overflow
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for

ZONE = "America/St_Johns"
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}


def downloaded(page, link: str) -> list[list[str]]:
    """Click a link and parse the CSV file it downloads."""
    with page.expect_download() as download:
        page.click(link)
    with open(download.value.path(), encoding="utf-8", newline="") as file:
        return list(csv.reader(io.StringIO(file.read())))


@pytest.mark.browser
@pytest.mark.processes
def test_the_dashboard_reads_the_sites_time_and_downloads_what_it_shows(demo_store, dynamodb_local, tmp_path):
    zone = ZoneInfo(ZONE)
    today = day_of(time.time(), zone)
    recorder = HistoryRecorder(demo_store, interval=3600, zone=zone)
    recorder.record(name="welcome", count=2, at=today.start)  # the first second of the site's day
    recorder.record(name="welcome", count=3, at=today.start - 1200)  # 23:40 the day before
    recorder.flush()
    env = site_env_for(demo_store, dynamodb_local, tmp_path, DJANGO_TIME_ZONE=ZONE)
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site, chromium() as browser:
        context = browser.new_context(
            timezone_id="Asia/Tokyo", viewport=SIZES["desktop"], accept_downloads=True
        )
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{site.url}/")
        assert page.inner_text(".overview .period") == f"Today is counted from 00:00 in {ZONE}"
        page.select_option("#history-counter", "welcome")
        # Not busy: the choice reloads the chart, even when it opened on that page.
        page.wait_for_selector('#history-chart[data-window="24h"][data-total="5"]:not([aria-busy])')
        assert page.inner_text("#history-zone") == f"Times in {ZONE}."
        page.focus("#history-chart")  # shows the last column with views: the site's first quarter hour
        tip = page.inner_text("#history-tip")  # `Wed, 12:00 - 12:15 AM: 2 views` (Tokyo: 12:30 PM)
        assert tip.startswith(f"{today_name(today.start)}, 12:00") and tip.endswith("AM: 2 views"), tip

        page.click('#history-ranges label:text-is("90 d")')
        page.wait_for_selector('#history-chart[data-window="90d"][data-points="90"]:not([aria-busy])')
        page.focus("#history-counter")
        page.focus("#history-chart")
        assert page.inner_text("#history-tip") == f"{day_name(today.start)}: 2 views"
        page.keyboard.press("ArrowLeft")
        assert page.inner_text("#history-tip") == f"{day_name(today.start - 1200)}: 3 views"

        chart_csv = downloaded(page, "#history-csv")
        assert chart_csv[0] == ["start", "local_start", "count"] and len(chart_csv) == 1 + 90
        offset = datetime.fromtimestamp(today.start, zone).strftime("%z")
        assert chart_csv[-1][1:] == [f"{today.date.isoformat()}T00:00:00{offset[:3]}:{offset[3:]}", "2"]
        assert chart_csv[-2][2] == "3"

        pages_csv = {row[0]: row for row in downloaded(page, "text=Download this table (CSV)")}
        assert pages_csv["welcome"][3] == "2", "views today: since the site's midnight"
        polls = page.locator(".poll a.csv-link")
        assert polls.count() == page.locator(".poll").count() > 0
        results = downloaded(page, '.poll[data-poll="language"] a.csv-link')
        assert results[0] == ["option", "label", "votes", "share"]
        assert errors == []
        context.close()


def day_name(epoch: float) -> str:
    """A day as the chart names it in English (`Wed, Nov 25`), in the site's zone."""
    moment = datetime.fromtimestamp(epoch, ZoneInfo(ZONE))
    return f"{moment:%a}, {moment:%b} {moment.day}"


def today_name(epoch: float) -> str:
    """A weekday as the 24-hour chart's tooltip starts (`Wed`), in the site's zone."""
    return f"{datetime.fromtimestamp(epoch, ZoneInfo(ZONE)):%a}"


@pytest.mark.browser
@pytest.mark.processes
def test_the_chart_and_its_links_pass_axe_at_both_sizes_in_both_schemes(demo_store, dynamodb_local, tmp_path):
    recorder = HistoryRecorder(demo_store, interval=3600, zone=ZoneInfo(ZONE))
    for hours_ago, count in ((0, 4), (3, 7), (30, 5), (24 * 20, 9)):
        recorder.record(name="welcome", count=count, at=time.time() - hours_ago * 3600)
    recorder.flush()
    env = site_env_for(demo_store, dynamodb_local, tmp_path, DJANGO_TIME_ZONE=ZONE)
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site, chromium() as browser:
        for size, viewport in SIZES.items():
            for scheme in ("light", "dark"):
                context = browser.new_context(viewport=viewport, color_scheme=scheme, bypass_csp=True)
                page = context.new_page()
                page.goto(f"{site.url}/")
                page.select_option("#history-counter", "welcome")
                for label in ("24 h", "90 d"):
                    page.click(f'#history-ranges label:text-is("{label}")')
                    page.wait_for_selector("#history-chart[data-points]:not([aria-busy])")
                    page.locator("#history").screenshot(
                        path=str(screenshot_path(f"chart-{label.replace(' ', '')}-{size}-{scheme}.png"))
                    )
                screenshot(page, f"dashboard-time-{size}-{scheme}.png")
                assert axe_violations(page) == [], (size, scheme)
                assert sideways_overflow(page) == 0, (size, scheme)
                context.close()


def screenshot_path(name: str) -> Path:
    """Where a screenshot of the chart goes (test-artifacts/)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name
