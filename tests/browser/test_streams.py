"""Changes nobody here wrote (the AWS CLI, a Lambda on the AWS SDK for JavaScript) show live in Chromium."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page, sync_playwright

from counters.services.watched import counter_watch
from tests.support.browser import admin_login, axe_violations, launch, staff_site
from tests.support.outside_writers import KEY, add_units, aws_cli_add, lambda_add, other_table
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for

PUSH_MS = 15_000

# Every total the page applied for a counter, in order, with its version and stream sequence.
RECORD = """(name) => {
  window.applied = [];
  LiveCounters.subscribe(message => message.counters.forEach(c => {
    if (c.name === name) window.applied.push([c.value, c.version]);
  }));
}"""
SHOWS = """([name, value]) => {
  const nodes = [...document.querySelectorAll(`[data-counter="${name}"]`)];
  return nodes.length > 0 && nodes.every(n => n.dataset.value === String(value));
}"""


def wait_shows(page: Page, name: str, value: int) -> float:
    """Wait until every number of the counter shows `value`; the seconds it took."""
    began = time.monotonic()
    page.wait_for_function(SHOWS, arg=[name, value], timeout=PUSH_MS)
    return time.monotonic() - began


@pytest.mark.browser
@pytest.mark.processes
def test_outside_writers_show_live_and_the_apps_own_views_once(demo_store, dynamodb_local, tmp_path):
    env = site_env_for(demo_store, dynamodb_local, tmp_path, COUNTERS_STREAM_READER="worker")
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site, sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            # bypass_csp: axe-core is injected as a script tag, which the site's policy forbids.
            context = browser.new_context(viewport={"width": 1100, "height": 1400}, bypass_csp=True)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{site.url}/")
            page.wait_for_selector('#connection[data-state="live"]', timeout=PUSH_MS)
            page.evaluate(RECORD, "welcome")

            written = [aws_cli_add(dynamodb_local, demo_store.table, "welcome", 5)]
            print(f"aws dynamodb update-item shown after {wait_shows(page, 'welcome', written[-1]):.2f}s")
            for units in (3, 4):
                written += lambda_add(dynamodb_local, demo_store.table, [("welcome", units)])
                print(f"the Lambda's ADD shown after {wait_shows(page, 'welcome', written[-1]):.2f}s")
            # The app's own view: pushed when written, and its stream record is not pushed again.
            visitor = browser.new_page()
            visitor.goto(f"{site.url}/pages/welcome/")
            written.append(written[-1] + 1)
            wait_shows(page, "welcome", written[-1])
            written.append(aws_cli_add(dynamodb_local, demo_store.table, "welcome", 10))
            wait_shows(page, "welcome", written[-1])
            # A later change as the sentinel: a late or repeated push of any earlier one arrives before it.
            written.append(aws_cli_add(dynamodb_local, demo_store.table, "welcome", 1))
            wait_shows(page, "welcome", written[-1])

            applied = page.evaluate("window.applied")
            assert [value for value, _ in applied] == written, f"each total once, in order: {applied}"
            assert written[-1] == demo_store.get("welcome").value
            assert axe_violations(page) == []
            assert errors == []
        finally:
            browser.close()


@pytest.mark.browser
@pytest.mark.processes
def test_a_watched_item_in_another_table_shows_live_and_staff_reset_it(demo_store, dynamodb_local, tmp_path):
    client, table = other_table(dynamodb_local, stream=True)
    counter_watch(name="api-units", table=table, key=KEY, attribute="units", title="API units")
    env = site_env_for(demo_store, dynamodb_local, tmp_path, COUNTERS_STREAM_READER="worker")
    site = staff_site(env, tmp_path / "site.log", username="staff", password="a-long-passphrase-1")
    with site, sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 1400})
            page.goto(f"{site.url}/")
            page.wait_for_selector('#connection[data-state="live"]', timeout=PUSH_MS)
            wait_shows(page, "api-units", 7)
            add_units(client, table, 5)  # the other service, in its own table
            print(f"the other table's ADD shown after {wait_shows(page, 'api-units', 12):.2f}s")

            admin = browser.new_page()
            admin_login(admin, site.url, username="staff", password="a-long-passphrase-1")
            admin.goto(f"{site.url}/admin/counters/counter/api-units/")
            admin.fill("#id_reason", "new month")
            admin.click("#reset-submit")
            admin.click("#reset-confirm")
            assert "Reset api-units from 12" in admin.inner_text(".messagelist")
            assert "new month" in admin.inner_text("#reset-history")
            wait_shows(page, "api-units", 0)
            assert client.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"] == {
                **KEY,
                "units": {"N": "0"},
            }
            add_units(client, table, 2)
            wait_shows(page, "api-units", 2)
        finally:
            browser.close()
