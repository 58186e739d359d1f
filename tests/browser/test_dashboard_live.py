"""Every number on an open dashboard moves without a reload, and after every gap the page equals a
fresh load: visitors (per page and site-wide), dashboards open, bot views, views today; rows re-sort but
never under the pointer or focus; a 4404 close and a store outage are caught up. At a laptop's and a
phone's width, light and dark, with axe-core at 0 violations."""

from __future__ import annotations

import time

import pytest
import requests
from playwright.sync_api import expect

from counters.demo import seed_demo
from counters.domain.values import CounterDefinition, PollDefinition, PollOption
from tests.support.browser import axe_violations, screenshot, sideways_overflow, watched
from tests.support.faultproxy import FaultProxy
from tests.support.processes import SiteProcess
from tests.support.site import fresh_store, site_env_for

pytestmark = [pytest.mark.browser, pytest.mark.processes]

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
LIVE_MS = 20_000
PUSH_MS = 10_000
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
HANG = 600  # longer than any test: the proxy drops these requests when it stops


@pytest.fixture(scope="module")
def board(dynamodb_local, tmp_path_factory):
    """A demo table and one site process on it (behind a fault proxy) for the module."""
    data_dir = tmp_path_factory.mktemp("board")
    with (
        fresh_store(dynamodb_local, data_dir) as store,
        FaultProxy.for_endpoint(dynamodb_local.endpoint_url) as proxy,
    ):
        seed_demo(store)
        env = site_env_for(
            store,
            dynamodb_local,
            data_dir,
            COUNTERS_PROXY_COUNT="1",
            # Apart, as deployed (the test site's default is off: headless Chromium reads as a bot).
            COUNTERS_COUNT_BOTS_APART="true",
            COUNTERS_DYNAMODB_CONNECT_TIMEOUT="1",
            COUNTERS_DYNAMODB_READ_TIMEOUT="1",
        )
        env["DYNAMODB_ENDPOINT_URL"] = proxy.endpoint_url
        with SiteProcess(env=env, log_path=data_dir / "site.log") as site:
            yield store, site, proxy


def open_dashboard(browser, url: str, *, size: str = "desktop", scheme: str = "light", live: bool = True):
    context = browser.new_context(viewport=SIZES[size], color_scheme=scheme, bypass_csp=True)
    page = watched(context, console=False)
    page.goto(f"{url}/")
    if live:
        expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)
    return page


def visit(url: str, page: str, person: str, *, agent: str = BROWSER) -> None:
    """One view of a demo page by one person (their address, through the one trusted proxy)."""
    headers = {"X-Forwarded-For": person, "User-Agent": agent}
    requests.get(f"{url}/pages/{page}/", headers=headers, timeout=10).raise_for_status()


def number(page, selector: str) -> int:
    return int(page.get_attribute(selector, "data-value") or 0)


def headline(page) -> dict[str, int]:
    """The numbers a person reads first, and each row's views today and visitors today."""
    numbers = {
        name: number(page, selector)
        for name, selector in {
            "views today": '[data-stat="views-today"]',
            "visitors today": ".stat [data-visitors]",
            "votes": '[data-stat="votes"]',
            "bots": '[data-stat="bots"]',
        }.items()
    }
    for row in page.locator("tr[data-row]").evaluate_all("rows => rows.map(r => r.dataset.row)"):
        numbers[f"{row} today"] = number(page, f'[data-today-of="{row}"]')
        numbers[f"{row} visitors"] = number(page, f'tr[data-row="{row}"] [data-visitors]')
    return numbers


def agrees_with_a_fresh_load(browser, url: str, page) -> None:
    """The open page shows what a reload shows (waiting out a push still on its way)."""
    fresh = open_dashboard(browser, url, live=False)
    expected = headline(fresh)
    fresh.context.close()
    deadline = time.monotonic() + PUSH_MS / 1000
    while headline(page) != expected and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert headline(page) == expected


def assert_accessible(page, what: str) -> None:
    violations = axe_violations(page)
    assert violations == [], f"axe on {what}: {violations}"


@pytest.mark.parametrize("size", SIZES)
def test_an_open_dashboard_follows_visitors_dashboards_and_bots(board, browser, size):
    _, site, _ = board
    page = open_dashboard(browser, site.url, size=size)
    expect(page.locator('.stat [data-viewing="dashboard"]')).to_have_text("1")
    before = headline(page)
    tag = 1 if size == "desktop" else 2
    for i in range(3):
        for _ in range(2):
            visit(site.url, "docs", f"203.0.{tag}.{i + 1}")
    visit(site.url, "welcome", f"203.0.{tag}.1")  # a person seen already: the site counts them once
    visit(site.url, "docs", f"203.0.{tag}.9", agent=GOOGLEBOT)

    expect(page.locator(".stat [data-visitors]")).to_have_attribute(
        "data-value", str(before["visitors today"] + 3), timeout=PUSH_MS
    )
    expect(page.locator('tr[data-row="docs"] [data-visitors]')).to_have_attribute(
        "data-value", str(before["docs visitors"] + 3), timeout=PUSH_MS
    )
    expect(page.locator('[data-stat="bots"]')).to_have_attribute("data-value", str(before["bots"] + 1))
    docs_today = page.locator('[data-today-of="docs"]')
    expect(docs_today).to_have_attribute("data-value", str(before["docs today"] + 6))
    expect(page.locator('[data-stat="views-today"]')).to_have_attribute(
        "data-value", str(before["views today"] + 7)
    )
    second = open_dashboard(browser, site.url, size=size)
    expect(page.locator('.stat [data-viewing="dashboard"]')).to_have_text("2", timeout=PUSH_MS)
    expect(second.locator('.stat [data-viewing="dashboard"]')).to_have_text("2")
    second.context.close()
    expect(page.locator('.stat [data-viewing="dashboard"]')).to_have_text("1", timeout=PUSH_MS)
    agrees_with_a_fresh_load(browser, site.url, page)
    assert page.locator('tr[data-row="dashboard"]').count() == 0, "the dashboard is no page of the site"
    assert sideways_overflow(page) <= 0
    assert_accessible(page, f"the live dashboard ({size})")
    assert page.problems == []
    page.context.close()


def test_rows_re_sort_but_never_under_the_pointer_or_focus(board, browser):
    _, site, _ = board
    page = open_dashboard(browser, site.url)
    rows = page.locator("tr[data-row]")

    def order() -> list[str]:
        return rows.evaluate_all("rows => rows.map(r => r.dataset.row)")

    first = order()
    last = first[-1]
    lead = number(page, f'[data-today-of="{first[0]}"]')
    page.hover(f'tr[data-row="{first[1]}"] th')
    for _ in range(lead + 1 - number(page, f'[data-today-of="{last}"]')):
        visit(site.url, last, "198.51.100.7")
    climber = page.locator(f'[data-today-of="{last}"]')
    expect(climber).to_have_attribute("data-value", str(lead + 1), timeout=PUSH_MS)
    assert order() == first, "nothing moves under the pointer"
    page.mouse.move(5, 5)
    expect(rows.first).to_have_attribute("data-row", last, timeout=PUSH_MS)

    # Focus on a link in the table: the rows stay put until focus leaves the table.
    now = order()
    link = page.locator(f'tr[data-row="{now[2]}"] th a')
    link.focus()
    runner_up = now[-1]
    lead = number(page, f'[data-today-of="{now[0]}"]')
    for _ in range(lead + 1 - number(page, f'[data-today-of="{runner_up}"]')):
        visit(site.url, runner_up, "198.51.100.8")
    expect(page.locator(f'[data-today-of="{runner_up}"]')).to_have_attribute(
        "data-value", str(lead + 1), timeout=PUSH_MS
    )
    assert order() == now and page.evaluate("document.activeElement.closest('tr').dataset.row") == now[2]
    page.locator("#history-chart").focus()
    expect(rows.first).to_have_attribute("data-row", runner_up, timeout=PUSH_MS)
    assert page.problems == []
    page.context.close()


def test_a_4404_close_reconnects_and_catches_up_with_polls_and_pages(board, browser):
    store, site, _ = board
    gate = {"open": True, "sockets": []}
    context = browser.new_context(viewport=SIZES["desktop"], bypass_csp=True)
    page = watched(context, console=False)

    def route(ws) -> None:
        if not gate["open"]:
            ws.close(code=4404, reason="no such page")
            return
        gate["sockets"].append(ws)
        ws.connect_to_server()

    page.route_web_socket("**/ws/counters/**", route)
    page.goto(f"{site.url}/")
    expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)
    assert "page=dashboard" in gate["sockets"][0].url

    gate["open"] = False
    gate["sockets"][0].close(code=4404, reason="no such page")
    expect(page.locator("#connection")).to_have_attribute("data-state", "reconnecting", timeout=PUSH_MS)
    # Meanwhile, changes no open page hears: a new poll, a new page and its views.
    options = (PollOption("soup", "Soup"), PollOption("salad", "Salad"))
    store.define_poll(PollDefinition(id="lunch", question="Lunch?", options=options))
    store.define_counter(CounterDefinition(name="news", kind="views", title="News"))
    for i in range(3):
        visit(site.url, "news", f"192.0.2.{i + 1}")
    gate["open"] = True

    expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)
    assert "page=" not in gate["sockets"][-1].url, "after a 4404 the socket names no page"
    expect(page.locator('[data-poll="lunch"]')).to_be_visible(timeout=PUSH_MS)
    expect(page.locator('[data-today-of="news"]')).to_have_attribute("data-value", "3", timeout=PUSH_MS)
    expect(page.locator('tr[data-row="news"] [data-visitors]')).to_have_attribute("data-value", "3")
    expect(page.locator('#history-counter option[value="news"]')).to_have_count(1)
    agrees_with_a_fresh_load(browser, site.url, page)
    assert page.problems == []
    context.close()


def test_a_dashboard_loaded_during_an_outage_fills_in_when_the_store_is_back(board, browser):
    _, site, proxy = board
    page = open_dashboard(browser, site.url, size="phone")
    python = page.locator('[data-poll="language"] li[data-option="python"] button[data-vote]')
    python.click()
    expect(python).to_have_attribute("aria-pressed", "true", timeout=PUSH_MS)
    proxy.arm("delay", seconds=HANG)
    try:
        page.reload()
        expect(page.locator("#connection")).to_have_attribute("data-state", "unavailable")
        assert page.locator("tr[data-row]").count() == 0
        assert page.locator("#counts-unavailable").is_visible()
    finally:
        proxy.clear()
    expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)
    expect(page.locator('tr[data-row="docs"]')).to_be_visible(timeout=PUSH_MS)
    expect(page.locator("#counts-unavailable")).to_have_count(0)
    expect(page.locator("[data-poll]").first).to_be_visible()
    expect(python).to_have_attribute("aria-pressed", "true")  # the visitor's own vote, marked again
    page.wait_for_selector("#history-chart[data-points]", timeout=PUSH_MS)
    page.wait_for_selector('svg[data-sparkline="docs"][data-points]', timeout=PUSH_MS)
    expect(page.locator('[data-stat="views-today"]')).not_to_have_text("–")
    expect(page.locator("body")).not_to_contain_text("cannot be reached")
    polls = page.locator("[data-poll]").count()
    hint = page.locator('[data-stat-hint="votes"]')
    expect(hint).to_have_text(f"all time, one per voter, in {polls} polls")
    agrees_with_a_fresh_load(browser, site.url, page)
    assert_accessible(page, "the dashboard filled in after an outage")
    screenshot(page, "dashboard-after-outage-phone.png")
    page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", SIZES)
def test_dashboard_looks(board, browser, size, scheme):
    _, site, _ = board
    page = open_dashboard(browser, site.url, size=size, scheme=scheme)
    page.wait_for_selector("#history-chart[data-points]")
    headers = page.locator("#pages-table thead th").evaluate_all(
        "cells => cells.filter(c => c.offsetParent !== null).map(c => c.innerText.toLowerCase())"
    )
    for text in headers[1:]:
        assert any(period in text for period in ("today", "last hour", "all time")), headers
    assert_accessible(page, f"the dashboard ({size}, {scheme})")
    screenshot(page, f"dashboard-live-{size}-{scheme}.png")
    page.context.close()
