"""The live dashboard in a real Chromium: pushed totals, stale versions ignored, reconnect and resync."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from tests.support.browser import launch
from tests.support.processes import PROJECT_DIR, SiteProcess, free_port
from tests.support.site import site_env_for

ARTIFACTS = PROJECT_DIR / "test-artifacts"
# Generous on a loaded shared machine; the time it took is printed (and measured in bench/fanout.py).
PUSH_MS = 15_000
RECOVER_MS = 30_000  # backoff tops out at 8 s plus the server's start-up

# The raw value each number shows (its text has thousands separators: 1,000).
SHOWN = """() => Object.fromEntries(
  [...document.querySelectorAll('[data-counter]')].map(n => [n.dataset.counter, n.dataset.value])
)"""
ALL_SHOW = """([name, value]) => {
  const nodes = [...document.querySelectorAll(`[data-counter="${name}"]`)];
  return nodes.length > 0 && nodes.every(n => n.dataset.value === String(value));
}"""
# Records every counter that gets the highlight class, however briefly it stays.
WATCH_HIGHLIGHTS = """() => {
  window.highlighted = [];
  new MutationObserver(changes => changes.forEach(change => {
    if (change.target.classList.contains('changed')) window.highlighted.push(change.target.dataset.counter);
  })).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['class']});
}"""

OFFER_STALE = """() => {
  const heard = [];
  const stop = LiveCounters.subscribe(message => heard.push(message));
  const applied = LiveCounters.offer([{name: 'welcome', value: 99, version: 1}]);
  stop();
  return {applied, heard};
}"""


def wait_state(page: Page, state: str, timeout: float) -> None:
    page.wait_for_selector(f'#connection[data-state="{state}"]', timeout=timeout)


def wait_shows(page: Page, name: str, value: int, timeout: float) -> None:
    page.wait_for_function(ALL_SHOW, arg=[name, value], timeout=timeout)


def totals(store) -> dict[str, str]:
    return {state.name: str(state.value) for state in store.list_counters()}


@pytest.mark.browser
@pytest.mark.processes
def test_two_dashboards_follow_views_and_recover_after_a_restart(demo_store, dynamodb_local, tmp_path):
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    port = free_port()
    site = SiteProcess(env=env, log_path=tmp_path / "site.log", port=port).start()
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                errors: list[str] = []
                dashboards = [browser.new_page(viewport={"width": 1100, "height": 1400}) for _ in range(2)]
                for page in dashboards:
                    page.on("pageerror", lambda exc: errors.append(str(exc)))
                    page.goto(f"{site.url}/")
                    wait_state(page, "live", RECOVER_MS)
                assert dashboards[0].inner_text("#connection") == "live"

                for page in dashboards:
                    page.evaluate(WATCH_HIGHLIGHTS)
                visitor = browser.new_page()
                visitor.goto(f"{site.url}/pages/welcome/")
                loaded = time.monotonic()
                for page in dashboards:
                    wait_shows(page, "welcome", 1, PUSH_MS)
                print(f"view in a third tab shown on both dashboards after {time.monotonic() - loaded:.2f}s")
                for page in dashboards:
                    # The second dashboard's own load: counted apart from the pages' traffic.
                    own = page.locator('[data-stat="own-today"]')
                    expect(own).to_have_attribute("data-value", "2", timeout=PUSH_MS)
                for page in dashboards:
                    assert "welcome" in page.evaluate("window.highlighted")

                # An older version never replaces a newer one, whatever its value, nor reaches subscribers.
                stale = dashboards[0].evaluate(OFFER_STALE)
                assert stale == {"applied": [], "heard": []}
                assert dashboards[0].evaluate(SHOWN)["welcome"] == "1"

                site.stop()
                for page in dashboards:
                    wait_state(page, "reconnecting", RECOVER_MS)
                assert dashboards[0].inner_text("#connection") == "reconnecting…"
                # Written while no server runs: only the fresh snapshot can bring these.
                for _ in range(3):
                    demo_store.increment("welcome", kind="views")
                demo_store.increment("language.rust", kind="votes")

                site = SiteProcess(env=env, log_path=tmp_path / "site.log", port=port).start()
                expected = totals(demo_store)
                for page in dashboards:
                    wait_state(page, "live", RECOVER_MS)
                    wait_shows(page, "welcome", 4, RECOVER_MS)
                    shown = page.evaluate(SHOWN)
                    assert shown == {name: expected[name] for name in shown}
                assert shown["language.rust"] == "1"

                ARTIFACTS.mkdir(exist_ok=True)
                shot = ARTIFACTS / "live-dashboard.png"
                dashboards[0].screenshot(path=str(shot), full_page=True)
                assert shot.stat().st_size > 10_000
                assert errors == []
            finally:
                browser.close()
    finally:
        site.stop()
