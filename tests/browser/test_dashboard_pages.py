"""Pages created while a dashboard is open, and a dashboard of a thousand pages, in a real Chromium.

- Whole-site counting on: pages created at their first view (site.js on another origin, `POST /api/hit`,
  the middleware) reach an open dashboard with that view: each row's views today, "Views today" and
  "Views in the last hour" equal what `/api/overview` says, and a fresh load shows the same.
- A thousand pages created through `/api/hit`: a dashboard load makes at most five requests after its
  document (static files and the websocket apart), shows the busiest fifty rows in the overview's order
  and links to the list of every page; screenshots at a phone's width and at 1280x720."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from playwright.sync_api import expect

from counters.demo import seed_demo
from counters.domain.page_rules import page_name
from counters.web.views.pages import TOP_PAGES
from tests.browser.test_whole_site import static_origin, write_pages
from tests.support.browser import screenshot, sideways_overflow, watched
from tests.support.groups import LOADS_THE_MACHINE
from tests.support.processes import SiteProcess, free_port
from tests.support.site import fresh_store, site_env_for
from tests.support.timing import scaled

pytestmark = [pytest.mark.browser, pytest.mark.processes]

LIVE_MS = 20_000
AGREE_S = 20.0
# After the document: the sparklines, the chart's history, the site panel's numbers and its chart.
REQUEST_BOUND = 5
SITE_ORIGIN = "https://docs.example.com"
# A thousand pages made quickly: no per-address limit on the beacon, and time for DynamoDB Local to
# answer while it creates pages side by side on a shared machine.
BUSY_SITE = {"COUNTERS_BEACON_RATE": "0", "COUNTERS_DYNAMODB_READ_TIMEOUT": "20"}


def site_for(store, dynamodb_local, data_dir: Path, port: int, *origins: str, **env: str) -> SiteProcess:
    """A site counting every page, taking beacons from `origins`."""
    settings = site_env_for(
        store,
        dynamodb_local,
        data_dir,
        DJANGO_SETTINGS_MODULE="tests.support.site_pages_settings",
        COUNTERS_SITE_PAGES="true",
        COUNTERS_SITE_ORIGINS=",".join(origins),
        **env,
    )
    site = SiteProcess(env=settings, log_path=data_dir / "site.log", port=port)
    site.migrate()
    return site


def hit(session: requests.Session, url: str, path: str, title: str) -> None:
    """One view of a page served elsewhere, as site.js sends it."""
    body = {"path": path, "title": title, "referrer": "", "utm_source": ""}
    answer = session.post(f"{url}/api/hit", json=body, headers={"Origin": SITE_ORIGIN}, timeout=30)
    assert answer.status_code in (200, 202, 204), answer.text


def numbers_shown(page) -> dict[str, int]:
    """The dashboard's headline views and each row's views today, as it shows them."""
    return page.evaluate(
        """() => {
          const value = (node) => Number(node.getAttribute("data-value"));
          const shown = {
            "views today": value(document.querySelector('[data-stat="views-today"]')),
            "views in the last hour": value(document.querySelector('[data-stat="views-hour"]')),
          };
          document.querySelectorAll("[data-page-rows] tr[data-row]").forEach((row) => {
            shown[row.dataset.row] = value(row.querySelector("[data-today-of]"));
          });
          return shown;
        }"""
    )


def numbers_read(url: str, names: list[str] | None = None) -> dict[str, int]:
    """The same numbers from `/api/overview` (the rows: `names`, or every page)."""
    overview = requests.get(f"{url}/api/overview", timeout=30).json()
    read = {"views today": overview["views_today"], "views in the last hour": overview["views_last_hour"]}
    pages = {page["name"]: page["today"] for page in overview["pages"]}
    read.update({name: pages.get(name, -1) for name in (pages if names is None else names)})
    return read


def agreed(page, url: str) -> dict[str, int]:
    """Wait until the dashboard shows what the overview says; its numbers then."""
    deadline = time.monotonic() + AGREE_S
    while True:
        shown = numbers_shown(page)
        read = numbers_read(url, [name for name in shown if name.islower() and " " not in name])
        if shown == read or time.monotonic() > deadline:
            assert shown == read, "an open dashboard differs from /api/overview"
            return shown
        page.wait_for_timeout(200)


def open_dashboard(browser, url: str, **context):
    page = watched(browser.new_context(**context), console=False)
    page.goto(f"{url}/")
    expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)
    return page


def test_pages_created_while_a_dashboard_is_open_count_their_first_view(browser, dynamodb_local, tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    write_pages(tmp_path / "docs", url, "Static docs home")
    with fresh_store(dynamodb_local, tmp_path) as store, static_origin(tmp_path / "docs") as docs:
        seed_demo(store)
        with site_for(store, dynamodb_local, tmp_path, port, docs, SITE_ORIGIN) as site:
            dashboard = open_dashboard(browser, site.url)
            before = numbers_shown(dashboard)
            session = requests.Session()
            # Through the beacon: pages made at their first view, some viewed again at once.
            for i, views in enumerate((1, 3, 1, 2)):
                for _ in range(views):
                    hit(session, site.url, f"/posts/{i}", f"Post {i}")
            # Through the middleware: a plain Django view counted at its first view.
            for number in (1, 2, 2):
                session.get(f"{site.url}/guide/chapters/{number}/", timeout=30).raise_for_status()
            # Through site.js, from a page on another origin.
            reader = watched(browser.new_context(), console=False)
            with reader.expect_response(lambda response: response.url.endswith("/api/hit")):
                reader.goto(f"{docs}/index.html")
            shown = agreed(dashboard, site.url)
            assert shown["views today"] == before["views today"] + 7 + 3 + 1
            new_rows = [name for name in shown if name.startswith(("posts-", "guide-", "index-"))]
            assert len(new_rows) == 7, f"a row for each new page: {sorted(shown)}"
            picker = dashboard.locator("#history-counter option")
            assert picker.count() == len(new_rows) + len(before) - 2, "the chart can show each new page"
            # A fresh load agrees with the open dashboard.
            fresh = open_dashboard(browser, site.url)
            assert agreed(fresh, site.url) == shown
            assert dashboard.problems == [] and fresh.problems == []


@LOADS_THE_MACHINE
def test_a_thousand_pages_load_in_a_few_requests_showing_the_busiest(browser, dynamodb_local, tmp_path):
    port = free_port()
    with (
        fresh_store(dynamodb_local, tmp_path) as store,
        site_for(store, dynamodb_local, tmp_path, port, SITE_ORIGIN, **BUSY_SITE) as site,
    ):
        create_pages(site.url, 1000)
        page = watched(browser.new_context(viewport={"width": 1280, "height": 720}), console=False)
        asked: list[str] = []
        page.on("request", lambda request: asked.append(request.url))
        # The document reads every page's day and hour buckets (two Queries a page): seconds for 1,000,
        # and more beside the parallel suite. What this test bounds is the requests, not that time.
        page.goto(f"{site.url}/", timeout=scaled(90_000))
        expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)
        rows = page.locator("[data-page-rows] tr[data-row]")
        expect(rows).to_have_count(TOP_PAGES)
        # Every row's sparklines drawn, the chart and the site panel loaded: the load is over.
        drawn = page.locator("[data-page-rows] svg[data-points]")
        expect(drawn).to_have_count(2 * TOP_PAGES, timeout=LIVE_MS)
        chart = page.locator("#history-chart")
        expect(chart).to_have_attribute("data-points", re.compile(r"^\d+$"), timeout=LIVE_MS)
        expect(page.locator("[data-site-views]")).not_to_have_text("–", timeout=LIVE_MS)
        counted = [u for u in asked[1:] if "/static/" not in u]
        assert len(counted) <= REQUEST_BOUND, f"{len(counted)} requests after the document: {counted}"
        print(f"\n{len(asked)} requests, {len(counted)} after the document but static files: {counted}")

        started = time.monotonic()
        overview = requests.get(f"{site.url}/api/overview", timeout=60).json()
        print(f"/api/overview of {len(overview['pages'])} pages: {time.monotonic() - started:.2f} s")
        busiest = [p["name"] for p in overview["pages"][:TOP_PAGES]]
        assert rows.evaluate_all("rows => rows.map(r => r.dataset.row)") == busiest
        assert busiest[:3] == [page_of(0), page_of(1), page_of(2)]
        agreed(page, site.url)
        link = page.locator("[data-all-pages] a")
        expect(link).to_have_text(f"Show all {len(overview['pages']):,} pages")
        screenshot(page, "dashboard-1000-pages-1280.png")
        page.set_viewport_size({"width": 390, "height": 844})
        assert sideways_overflow(page) == 0
        screenshot(page, "dashboard-1000-pages-390.png")
        link.click()
        expect(page.locator("[data-listed]")).to_have_count(TOP_PAGES)
        expect(page.locator("[data-listing]")).to_contain_text(f"of {len(overview['pages']):,}")
        assert sideways_overflow(page) == 0
        screenshot(page, "all-pages-390.png")
        assert page.problems == []


def page_of(i: int) -> str:
    """The name the site gives the page at /p/<i> of SITE_ORIGIN."""
    return page_name(f"/p/{i}", host=SITE_ORIGIN.removeprefix("https://"))


def create_pages(url: str, count: int) -> None:
    """`count` pages through the beacon; the first ones viewed more (page 0 most)."""
    extra = {0: 5, 1: 4, 2: 3}
    views = [(i, 1 + extra.get(i, 1 if i < 80 else 0)) for i in range(count)]

    def view(item: tuple[int, int]) -> None:
        with requests.Session() as session:
            for _ in range(item[1]):
                hit(session, url, f"/p/{item[0]}", f"Page {item[0]}")

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(view, views))
