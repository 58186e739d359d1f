"""A whole site, in a real Chromium: a static page on a second origin counts itself with site.js, and
its views, visitors and source reach an open dashboard live; a single-page app's pushState counts its
new path; a page on a third origin is refused and counts nothing; a page's own view reads at a phone's
and a laptop's width; axe-core finds nothing on either page."""

from __future__ import annotations

import functools
import http.server
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests
from playwright.sync_api import expect

from counters.domain.page_rules import page_name
from tests.support.browser import axe_violations, chromium, screenshot, sideways_overflow
from tests.support.http_origin import serving
from tests.support.processes import SiteProcess, free_port
from tests.support.site import site_env_for

pytestmark = [pytest.mark.browser, pytest.mark.processes]

LIVE_MS = 15_000
READER = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<script src="{site}/static/counters/site.js" defer></script></head>
<body><h1>{title}</h1><button id="next" type="button">Next chapter</button>
<script>
document.getElementById("next").addEventListener("click", function () {{
  document.title = "Chapter two";
  history.pushState({{}}, "", "/chapters/two");
}});
</script></body></html>"""


@contextmanager
def static_origin(root: Path) -> Iterator[str]:
    """A tiny http.server serving `root` on a free port of its own: another origin than the site's."""
    port = free_port()
    handler = functools.partial(QuietHandler, directory=str(root))
    with serving(http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)):
        yield f"http://127.0.0.1:{port}"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def write_pages(root: Path, site: str, title: str) -> None:
    root.mkdir()
    (root / "index.html").write_text(PAGE.format(title=title, site=site))


def test_pages_outside_django_count_live_and_other_origins_are_refused(demo_store, dynamodb_local, tmp_path):
    site_port = free_port()
    site_url = f"http://127.0.0.1:{site_port}"
    write_pages(tmp_path / "docs", site_url, "Static docs home")
    write_pages(tmp_path / "evil", site_url, "Somebody else")
    with static_origin(tmp_path / "docs") as docs, static_origin(tmp_path / "evil") as evil:
        env = site_env_for(
            demo_store,
            dynamodb_local,
            tmp_path,
            DJANGO_SETTINGS_MODULE="tests.support.site_pages_settings",
            COUNTERS_SITE_PAGES="true",
            COUNTERS_SITE_ORIGINS=docs,
        )
        site = SiteProcess(env=env, log_path=tmp_path / "site.log", port=site_port)
        site.migrate()
        with site, chromium() as browser:
            check_the_whole_flow(browser, site, demo_store, docs=docs, evil=evil)


def check_the_whole_flow(browser, site, store, *, docs: str, evil: str) -> None:
    docs_host = docs.removeprefix("http://")
    home, chapter = page_name("/index.html", host=docs_host), page_name("/chapters/two", host=docs_host)
    # bypass_csp: axe-core is injected at the end, a script the site's own policy rightly refuses.
    dashboard = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    errors: list[str] = []
    dashboard.on("pageerror", lambda exc: errors.append(str(exc)))
    dashboard.goto(f"{site.url}/")
    dashboard.wait_for_selector('#connection[data-state="live"]', timeout=LIVE_MS)
    panel = dashboard.locator("[data-site-panel]")
    # The site's unique visitors today, in the overview's headline numbers.
    site_visitors = dashboard.locator('.overview [data-visitors="_site"]')
    visitors_before = int(site_visitors.inner_text().replace(",", ""))

    # Another person than the one watching the dashboard (a visitor is their address and user agent).
    reader = browser.new_context(user_agent=READER).new_page()
    reader.goto(f"{docs}/index.html?utm_source=newsletter")
    # The view, its visitor and its source reach the open dashboard without a reload.
    top_pages = panel.locator("[data-site-top-pages]")
    expect(top_pages.locator("tr", has_text="Static docs home")).to_contain_text("1", timeout=LIVE_MS)
    expect(panel.locator("[data-site-top-sources]")).to_contain_text("newsletter", timeout=LIVE_MS)
    expect(site_visitors).to_have_text(str(visitors_before + 1), timeout=LIVE_MS)
    assert store.get(home).title == "Static docs home"

    # A single-page app's own navigation counts its new path, titled as the app names it.
    reader.click("#next")
    expect(top_pages).to_contain_text("Chapter two", timeout=LIVE_MS)
    assert store.get(chapter).value == 1 and store.get(home).value == 1

    # A page on an origin the settings do not list is refused, and nothing is created or counted.
    refused = browser.new_context().new_page()
    with refused.expect_response(lambda response: response.url.endswith("/api/hit")) as answer:
        refused.goto(f"{evil}/index.html")
    assert answer.value.status == 403
    evil_host = evil.removeprefix("http://")
    assert page_name("/index.html", host=evil_host) not in store.counter_names()
    assert store.page_budget().created == 2

    check_a_pages_own_view(browser, dashboard, site, home)
    check_django_pages_count_without_registration(site, store)
    assert axe_violations(dashboard) == []
    screenshot(dashboard, "whole-site-dashboard.png")
    assert errors == []


def check_django_pages_count_without_registration(site, store) -> None:
    """The middleware counts a plain Django view; the admin, static files, a 404 and the app's own views
    (the dashboard counts itself, a page's own view is no traffic) never count as new pages."""
    assert requests.get(f"{site.url}/guide/intro/", timeout=10).status_code == 200
    for path in ("/admin/login/", "/static/counters/site.js", "/guide/missing/"):
        requests.get(f"{site.url}{path}", timeout=10)
    created = {
        state.description: state.value for state in store.list_counters() if state.description.startswith("/")
    }
    assert created == {"/guide/intro": 1}


def check_a_pages_own_view(browser, dashboard, site, name: str) -> None:
    """The top pages link to a page's own view: its views, visitors, sources and chart, at 390 and 1280 px."""
    link = dashboard.locator("[data-site-top-pages] a", has_text="Static docs home")
    assert link.get_attribute("href") == f"/site/pages/{name}/"
    # The pages table's row of the page (added live when it was created) links there too.
    details = dashboard.locator(f'tr[data-row="{name}"] a.page-details')
    expect(details).to_have_attribute("href", f"/site/pages/{name}/", timeout=LIVE_MS)
    for width in (390, 1280):
        page = browser.new_page(viewport={"width": width, "height": 844}, bypass_csp=True)
        page.goto(f"{site.url}/site/pages/{name}/")
        expect(page.locator("h1")).to_have_text("Static docs home")
        expect(page.locator("[data-sources-today]")).to_contain_text("newsletter")
        expect(page.locator(f'[data-counter="{name}"]').first).to_have_text("1")
        page.wait_for_selector("#history-chart[data-points]", timeout=LIVE_MS)
        assert sideways_overflow(page) == 0
        assert axe_violations(page) == []
        screenshot(page, f"whole-site-page-{width}.png")
        page.close()
