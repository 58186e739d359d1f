"""What a person meets, in a real Chromium: the dashboard, a demo page and the admin at a laptop's and a
phone's size, light and dark; axe-core finds nothing; nothing scrolls sideways; votes keep focus and do
not move the layout; the chart's ranges; poll changes made in the admin reach an open dashboard live.

One site process and one browser serve the whole module, so the flows cost one start-up."""

from __future__ import annotations

import secrets
import time

import pytest
import requests
from playwright.sync_api import expect

from counters.background.history_writer import HistoryRecorder
from counters.demo import seed_demo
from counters.domain.values import CounterDefinition
from tests.support.browser import (
    admin_login,
    axe_violations,
    screenshot,
    sideways_overflow,
    staff_site,
    watched,
)
from tests.support.processes import SiteProcess
from tests.support.site import fresh_store, site_env_for, unreachable_store_env
from tests.support.timing import scaled

pytestmark = [pytest.mark.browser, pytest.mark.processes]

USERNAME, PASSWORD = "staff", "a-long-test-password-42"
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
SCHEMES = ("light", "dark")
LIVE_MS = 20_000
# Views of `docs` written into its history (minutes ago -> views): the busiest page the chart opens on.
PAST_DOCS = {1: 4, 7: 2, 90: 5, 26 * 60: 3}


@pytest.fixture(scope="module")
def face(dynamodb_local, tmp_path_factory):
    """A demo table with some history and votes, and one site process on it for the module."""
    data_dir = tmp_path_factory.mktemp("face")
    with fresh_store(dynamodb_local, data_dir) as store:
        seed_demo(store)
        store.define_counter(
            CounterDefinition(name="quiet", kind="views", title="Quiet corner")
        )  # never visited
        for _ in range(sum(PAST_DOCS.values())):
            store.increment("docs", kind="views")
        recorder = HistoryRecorder(store)
        now = time.time()
        for minutes, views in PAST_DOCS.items():
            recorder.record(name="docs", count=views, at=now - minutes * 60)
        recorder.flush()
        for _ in range(3):
            store.increment("language.python", kind="votes")
        env = site_env_for(store, dynamodb_local, data_dir)
        site = staff_site(env, data_dir / "site.log", username=USERNAME, password=PASSWORD)
        with site:
            yield store, site


def open_page(browser, url: str, *, size: str = "desktop", scheme: str = "light", axe: bool = True):
    """A page in a context of its own (its own cookies), with errors collected in `page.problems`."""
    context = browser.new_context(viewport=SIZES[size], color_scheme=scheme, bypass_csp=axe)
    page = watched(context)
    page.goto(url)
    return page


def assert_accessible(page, what: str) -> None:
    violations = axe_violations(page)
    assert violations == [], f"axe on {what}: {violations}"


def test_dashboard_and_a_demo_page_at_both_sizes_light_and_dark(face, browser):
    _, site = face
    backgrounds = set()
    for size in SIZES:
        for scheme in SCHEMES:
            page = open_page(browser, f"{site.url}/", size=size, scheme=scheme)
            expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)
            page.wait_for_selector("#history-chart[data-points]")
            page.wait_for_selector('svg[data-sparkline="welcome"][data-points]')
            # Headline numbers first; the pages table has view counters only, no ids or kinds.
            assert page.locator(".stat dt").all_inner_texts() == [
                "Views today",
                "Views in the last hour",
                "Visitors today",
                "Votes cast",
                "Dashboards open",
                "Bot views",
            ]
            expect(page.locator('[data-stat="votes"]')).to_have_text("3")
            expect(page.locator('.stat [data-viewing="dashboard"]')).not_to_have_text("–")
            rows = page.locator("tr[data-row]").evaluate_all("rows => rows.map(r => r.dataset.row)")
            # The dashboard's own loads are no page of the site: no row of it.
            assert set(rows) == {"welcome", "pricing", "docs", "quiet"} and rows[0] == "docs"
            assert page.get_attribute('tr[data-row="pricing"] [data-counter]', "data-value") == "1000"
            assert "language.python" not in page.inner_text("#pages")
            assert sideways_overflow(page) <= 0
            assert_accessible(page, f"the dashboard ({size}, {scheme})")
            backgrounds.add(page.evaluate("getComputedStyle(document.body).backgroundColor"))
            screenshot(page, f"face-dashboard-{size}-{scheme}.png")

            page.goto(f"{site.url}/pages/welcome/")
            expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)
            views = page.locator(".views").inner_text()
            count = int(page.get_attribute(".views .count", "data-value"))
            assert views == f"Viewed {count} {'time' if count == 1 else 'times'} so far."
            assert sideways_overflow(page) <= 0
            assert_accessible(page, f"a demo page ({size}, {scheme})")
            screenshot(page, f"face-page-{size}-{scheme}.png")
            assert page.problems == []
            page.context.close()
    assert len(backgrounds) == 2, "dark mode follows prefers-color-scheme"


@pytest.mark.parametrize("width", [320, 390])
def test_nothing_scrolls_sideways_on_a_narrow_phone(face, browser, width):
    _, site = face
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    try:
        for path in ("/", "/pages/pricing/", "/no-such-page/"):
            page.goto(f"{site.url}{path}")
            page.wait_for_load_state("networkidle")
            assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth"), path
    finally:
        context.close()


def test_the_chart_opens_on_the_busiest_page_and_switches_ranges(face, browser):
    _, site = face
    page = open_page(browser, f"{site.url}/", axe=False)
    chart = page.locator("#history-chart")
    assert page.input_value("#history-counter") == "docs", "the page with the most views today"
    expect(chart).to_have_attribute("data-points", "96")  # 24 h by 15 minutes
    summary = page.locator("#history-summary")
    expect(summary).to_contain_text(
        "Documentation: 11 views in the last 24 hours; the busiest quarter hour was"
    )
    points = requests.get(f"{site.url}/api/counters/docs/history?window=24h&step=15m", timeout=10).json()[
        "points"
    ]
    busiest = max(point["count"] for point in points)
    expect(summary).to_contain_text(f" with {busiest} views.")
    for label, points, total in [("1 h", 60, 6), ("48 h", 48, 14), ("90 d", 90, 14), ("24 h", 96, 11)]:
        page.click(f'#history-ranges label:text-is("{label}")')
        expect(chart).to_have_attribute("data-points", str(points))
        expect(chart).to_have_attribute("data-total", str(total))
    assert page.locator("#history-chart line.grid").count() >= 3, "gridlines"
    # Axis text is drawn at its real size: the viewBox follows the drawn width.
    assert chart.evaluate(
        "svg => Math.abs(svg.viewBox.baseVal.width - svg.getBoundingClientRect().width) < 2"
    )
    # Keyboard: focus the chart, step through the columns, each read out with its count and time.
    chart.focus()
    page.keyboard.press("End")
    tip = page.locator("#history-tip")
    expect(tip).to_contain_text("view")
    page.keyboard.press("ArrowLeft")
    assert chart.get_attribute("data-active") == "94"
    page.select_option("#history-counter", "quiet")
    expect(summary).to_have_text("No views of Quiet corner in the last 24 hours.")
    assert page.problems == []
    page.context.close()


def layout(card) -> list[float]:
    """Where the card and each of its options sit on the page (not the viewport), in CSS pixels."""
    return card.evaluate(
        """card => [card, ...card.querySelectorAll('li[data-option]')].flatMap(node => {
             const box = node.getBoundingClientRect();
             return [box.top + window.scrollY, box.left, box.width, box.height];
           })"""
    )


def moved(after: list[float], before: list[float]) -> float:
    return max(abs(a - b) for a, b in zip(after, before, strict=True))


def test_a_vote_keeps_focus_and_the_layout_still(face, browser):
    _, site = face
    page = open_page(browser, f"{site.url}/", size="phone", axe=False)
    page.wait_for_selector('[data-poll="deploy"][data-ready="true"]')
    expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)
    page.wait_for_selector("#history-chart[data-points]")  # everything above has loaded
    card = page.locator('[data-poll="deploy"]')
    box = layout(card)
    aws = card.locator('li[data-option="aws"] button')
    aws.focus()
    page.keyboard.press("Enter")
    expect(card.locator('li[data-option="aws"]')).to_have_class("chosen")
    expect(card.locator("[data-vote-status]")).to_have_text("Your vote: AWS.")
    assert aws.evaluate("button => document.activeElement === button"), "focus stays on the pressed option"
    expect(card.locator('li[data-option="aws"] [data-share]')).to_have_text("100%")
    expect(card.locator("[data-poll-total]")).to_have_text("1")
    expect(card.locator(".poll-total")).to_have_text("1 vote in all", use_inner_text=True)
    expect(card.locator('li[data-option="aws"] .unit')).to_have_text("vote")
    assert moved(layout(card), box) < 0.5, "nothing jumps when the vote is marked"

    card.locator("[data-retract]").focus()
    page.keyboard.press("Enter")
    expect(card.locator("[data-vote-status]")).to_have_text("Your vote was withdrawn.")
    assert aws.evaluate("button => document.activeElement === button"), "focus goes back to the option"
    expect(card.locator(".poll-total")).to_have_text("0 votes in all", use_inner_text=True)
    assert moved(layout(card), box) < 0.5, "nothing jumps when the vote is withdrawn"
    assert page.problems == []
    page.context.close()


def test_poll_changes_in_the_admin_reach_an_open_dashboard_live(face, browser):
    store, site = face
    viewer = open_page(browser, f"{site.url}/", axe=False)
    expect(viewer.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)
    buttons = viewer.locator('[data-poll="language"] button[data-vote]')
    expect(buttons.first).to_be_enabled()

    admin = open_page(browser, f"{site.url}/admin/login/", axe=False)
    admin_login(admin, site.url, username=USERNAME, password=PASSWORD)
    admin.goto(f"{site.url}/admin/counters/poll/language/")
    admin.click('#closed-form input[type="submit"]')
    closed_at = time.monotonic()
    viewer.wait_for_function(
        """() => [...document.querySelectorAll('[data-poll="language"] button[data-vote]')]
                 .every(button => button.disabled)""",
        timeout=2000,
    )
    print(f"closing a poll in the admin disabled its buttons after {time.monotonic() - closed_at:.2f}s")
    expect(viewer.locator('[data-poll="language"] [data-poll-state]')).to_have_text("Closed")
    screenshot(viewer, "face-poll-closed-live.png")

    admin.click('#closed-form input[type="submit"]')  # reopen
    expect(buttons.first).to_be_enabled(timeout=2000)
    admin.fill("#id_label", "Kotlin")
    admin.click('#option-form input[type="submit"]')
    kotlin = viewer.locator('[data-poll="language"] li[data-option="kotlin"]')
    expect(kotlin.locator("[data-label]")).to_have_text("Kotlin", timeout=2000)
    kotlin.locator("button").click()
    expect(kotlin.locator(".count")).to_have_text("1")
    expect(kotlin).to_have_class("chosen")

    admin.goto(f"{site.url}/admin/counters/poll/add/")
    admin.fill("#id_poll_id", "editor")
    admin.fill("#id_question", "Which editor do you use?")
    admin.fill("#id_options", "Vim\nEmacs\nVS Code")
    admin.check("#id_dashboard")  # a poll for everyone, not a talk's: on the public dashboard
    admin.click('#poll-form input[type="submit"]')
    card = viewer.locator('[data-poll="editor"]')
    expect(card.locator("h3")).to_have_text("Which editor do you use?", timeout=2000)
    card.locator('li[data-option="emacs"] button').click()
    expect(card.locator('li[data-option="emacs"] .count')).to_have_text("1")
    expect(card.locator("[data-vote-status]")).to_have_text("Your vote: Emacs.")
    assert store.get("editor.emacs").value == 1
    assert viewer.problems == [] and admin.problems == []
    for page in (viewer, admin):
        page.context.close()


def test_admin_counter_list_and_counter_page_at_both_sizes_light_and_dark(face, browser):
    _, site = face
    for size in SIZES:
        for scheme in SCHEMES:
            page = open_page(browser, f"{site.url}/admin/login/", size=size, scheme=scheme)
            admin_login(page, site.url, username=USERNAME, password=PASSWORD)
            assert "Live counters administration" in page.inner_text("#site-name")
            page.goto(f"{site.url}/admin/counters/counter/")
            assert_accessible(page, f"the admin counter list ({size}, {scheme})")
            screenshot(page, f"face-admin-list-{size}-{scheme}.png")
            page.goto(f"{site.url}/admin/counters/counter/welcome/")
            assert_accessible(page, f"a counter's admin page ({size}, {scheme})")
            screenshot(page, f"face-admin-counter-{size}-{scheme}.png")
            page.context.close()


def test_store_down_reads_counts_unavailable_and_errors_are_styled_in_production(browser, tmp_path):
    # Production settings, and a store endpoint where nothing listens.
    env = unreachable_store_env(
        tmp_path,
        DJANGO_SETTINGS_MODULE="counters_site.settings_production",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_SESSION_COOKIE_SECURE="false",
        DJANGO_CSRF_COOKIE_SECURE="false",
        DJANGO_SECURE_HSTS_SECONDS="0",
    )
    site = SiteProcess(env=env, log_path=tmp_path / "site.log", ready_path="/pages/dashboard/")
    with site:
        page = open_page(browser, f"{site.url}/", size="phone")
        badge = page.locator("#connection")
        expect(badge).to_have_attribute("data-state", "unavailable")
        expect(badge).to_have_text("counts unavailable")
        # The socket is refused (4013) and retried: once the retry is refused too, still unavailable.
        with page.expect_websocket(timeout=scaled(15_000)) as retried:
            pass
        retried.value.wait_for_event("close", timeout=scaled(15_000))
        expect(badge).to_have_text("counts unavailable")
        assert "cannot be reached" in page.inner_text("#polls")
        assert_accessible(page, "the dashboard while the store is down")
        screenshot(page, "face-store-down.png")
        response = page.goto(f"{site.url}/no-such-page/")
        assert response.status == 404
        assert page.inner_text(".error-code") == "404"
        assert page.locator('link[href$="counters/counters.css"]').count() == 1
        assert page.evaluate("getComputedStyle(document.querySelector('.panel')).borderRadius") != "0px"
        assert_accessible(page, "the 404 page")
        screenshot(page, "face-404.png")
        page.context.close()
