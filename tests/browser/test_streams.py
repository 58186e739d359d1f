"""Changes nobody here wrote (the AWS CLI, a Lambda on the AWS SDK for JavaScript) show live in Chromium."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, Page, sync_playwright

from counters.domain.values import CounterDefinition
from counters.services.watched import counter_watch
from tests.support.browser import admin_login, axe_violations, launch, staff_site, watched
from tests.support.old_items import define_as_before
from tests.support.outside_writers import (
    KEY,
    add_units,
    aws_cli_add,
    lambda_add,
    other_table,
    outside_client,
    sdk_add,
)
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

# Every number the document shows for a counter, from its first render on: each element's text as
# rendered, then again each time it changes (installed before any script of the page runs).
COLLECT = """(() => {
  const selector = '[data-counter="%s"]';
  const read = node => Number(node.textContent.replace(/[^0-9]/g, ""));
  window.shown = [];
  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll(selector).forEach(node => window.shown.push(read(node)));
    new MutationObserver(records => records.forEach(record => {
      const node = record.target.nodeType === Node.ELEMENT_NODE ? record.target : record.target.parentElement;
      const counter = node && node.closest(selector);
      if (counter) window.shown.push(read(counter));
    })).observe(document.body, {subtree: true, childList: true, characterData: true});
  });
})();"""


def wait_shows(page: Page, name: str, value: int) -> float:
    """Wait until every number of the counter shows `value`; the seconds it took."""
    began = time.monotonic()
    page.wait_for_function(SHOWS, arg=[name, value], timeout=PUSH_MS)
    return time.monotonic() - began


@pytest.mark.browser
@pytest.mark.processes
def test_outside_writers_show_live_and_the_apps_own_views_once(demo_store, dynamodb_local, tmp_path):
    # As `make run` serves it: `runserver`, the stream reader left at its default.
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    env.pop("COUNTERS_STREAM_READER")
    site = SiteProcess(env=env, log_path=tmp_path / "site.log", server="runserver")
    with site, sync_playwright() as playwright:
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


@contextmanager
def live_dashboard(store, dynamodb_local, tmp_path, browser: Browser, name: str) -> Iterator[Page]:
    """A site reading the table's stream, its dashboard live and collecting what it shows for `name`."""
    env = site_env_for(store, dynamodb_local, tmp_path, COUNTERS_STREAM_READER="worker")
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site:
        context = browser.new_context(viewport={"width": 1100, "height": 1400})
        try:
            context.add_init_script(COLLECT % name)
            page = watched(context, console=False)
            page.goto(f"{site.url}/")
            page.wait_for_selector('#connection[data-state="live"]', timeout=PUSH_MS)
            yield page
        finally:
            context.close()


def shown_across_a_reload(page: Page, name: str, value: int) -> list[int]:
    """Every number the page showed for `name`, then what it shows reloaded (waiting for `value`)."""
    shown = page.evaluate("window.shown")
    page.reload()
    page.wait_for_selector('#connection[data-state="live"]', timeout=PUSH_MS)
    wait_shows(page, name, value)
    return shown + page.evaluate("window.shown")


@pytest.mark.browser
@pytest.mark.processes
def test_a_start_value_moves_forward_with_outside_writers_never_back(
    demo_store, dynamodb_local, tmp_path, browser
):
    """The demo's `pricing` carries 1,000 views; the AWS CLI, the JavaScript SDK and boto3 each ADD to it."""
    with live_dashboard(demo_store, dynamodb_local, tmp_path, browser, "pricing") as page:
        wait_shows(page, "pricing", 1000)

        table, other = demo_store.table, outside_client(dynamodb_local)
        writers = [
            lambda: aws_cli_add(dynamodb_local, table, "pricing", 1),
            lambda: lambda_add(dynamodb_local, table, [("pricing", 1)])[0],
            lambda: sdk_add(other, table, "pricing", 1),
            lambda: aws_cli_add(dynamodb_local, table, "pricing", 1),
            lambda: lambda_add(dynamodb_local, table, [("pricing", 1)])[0],
        ]
        for expected, write in enumerate(writers, start=1001):
            assert write() == expected, "each writer's ADD builds on the start"
            wait_shows(page, "pricing", expected)
        # A sixth ADD as the sentinel: a late or repeated push of an earlier total, sent before it, has
        # arrived (and been recorded) by the time the page shows it.
        assert sdk_add(other, table, "pricing", 1) == 1006
        wait_shows(page, "pricing", 1006)
        shown = shown_across_a_reload(page, "pricing", 1006)

        assert shown == sorted(shown), f"never a lower number: {shown}"
        assert shown[0] == 1000 and set(shown) == set(range(1000, 1007)), shown
        assert demo_store.get("pricing").value == 1006
        assert page.problems == []


@pytest.mark.browser
@pytest.mark.processes
def test_moving_an_old_counters_start_in_shows_on_an_open_page(store, dynamodb_local, tmp_path, browser):
    """A counter from before starts lived in the item, which another service added 5 to: counters_init
    moves its start in while a dashboard shows it, and the stream carries the new total there."""
    define_as_before(store, CounterDefinition(name="carried", kind="views", title="Carried", start=1000))
    other = outside_client(dynamodb_local)
    for _ in range(5):
        sdk_add(other, store.table, "carried", 1)
    with live_dashboard(store, dynamodb_local, tmp_path, browser, "carried") as page:
        wait_shows(page, "carried", 5)

        call_command("counters_init", "--no-demo")
        wait_shows(page, "carried", 1005)
        assert sdk_add(other, store.table, "carried", 1) == 1006
        wait_shows(page, "carried", 1006)
        shown = shown_across_a_reload(page, "carried", 1006)

        assert shown == sorted(shown), f"never a lower number: {shown}"
        assert set(shown) == {5, 1005, 1006}, shown
        assert page.problems == []
