"""The counters admin read on a phone (390x844) and a desktop (1280x800), light and dark, in Chromium.

The login is made with the README's own command. Every column of the counter list stays on screen
with its header apart from the next, the reset history wraps instead of running off the page, a
select-all box ticks every counter for the bulk actions, Add counter registers one, and axe finds
nothing on these pages.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from tests.support.browser import admin_login, axe_violations, chromium, screenshot, sideways_overflow
from tests.support.processes import PROJECT_DIR, SiteProcess
from tests.support.site import site_env_for

PASSWORD = "a-long-test-password-42"
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
SCHEMES = ("light", "dark")
LONG_REASON = "Counted twice during the load test of the new landing page; the numbers were meaningless"


def readme_superuser(env: dict[str, str]) -> str:
    """Run the README's createsuperuser line (without its prompts) against the site's database."""
    readme = (PROJECT_DIR / "README.md").read_text()
    line = re.search(r"^\.venv/bin/python manage\.py createsuperuser .*$", readme, re.M).group(0)
    username = re.search(r"--username (\S+)", line).group(1)
    command = line.replace(".venv/bin/python", sys.executable) + " --noinput"
    subprocess.run(
        command, shell=True, cwd=PROJECT_DIR, env={**env, "DJANGO_SUPERUSER_PASSWORD": PASSWORD},
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return username


def boxes(page, selector: str) -> list[dict]:
    """The on-screen box of each visible element matching `selector`."""
    found = page.locator(selector)
    return [box for i in range(found.count()) if (box := found.nth(i).bounding_box())]


# The box of each header's text itself (not its cell), left to right: where a reader sees the words.
HEADER_TEXTS = """() => Array.from(
  document.querySelectorAll("#result_list thead th:not(.action-checkbox-column)")
).map((th) => {
  const range = document.createRange(); range.selectNodeContents(th);
  const box = range.getBoundingClientRect();
  return {text: th.innerText.trim(), left: box.left, right: box.right, width: box.width};
}).filter((header) => header.width > 0)"""
# Words a reader can tell apart need at least this many pixels between them.
GAP = 8


def assert_nothing_cut_off(page, selector: str, width: int, what: str) -> None:
    for box in boxes(page, selector):
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, f"{what}: {selector} is cut off"


def assert_list_readable(page, width: int, what: str) -> None:
    """Every cell on screen; on a desktop each header apart from the next, on a phone each on its line."""
    assert_nothing_cut_off(page, "#result_list tbody td, #result_list tbody th", width, what)
    headers = page.evaluate(HEADER_TEXTS)
    if width > 767:
        assert [h["text"].lower() for h in headers][-3:] == ["value", "version", "last update"]
        for left, right in itertools.pairwise(headers):
            assert right["left"] - left["right"] >= GAP, (
                f"{what}: {left['text']!r} runs into {right['text']!r}"
            )
        assert_nothing_cut_off(page, "#result_list thead th", width, what)
    else:
        version, updated = (
            boxes(page, "#result_list td.version")[0],
            boxes(page, "#result_list td.updated")[0],
        )
        assert version["y"] + version["height"] <= updated["y"] + 0.5, (
            f"{what}: version and last update overlap"
        )
        assert (
            page.locator("#result_list td.version").first.evaluate(
                "(td) => getComputedStyle(td, '::before').content"
            )
            == '"Version: "'
        )


@pytest.mark.browser
@pytest.mark.processes
def test_the_admin_reads_on_a_phone_and_a_desktop_light_and_dark(demo_store, dynamodb_local, tmp_path):
    for _ in range(3):
        demo_store.increment("welcome", kind="views")
    demo_store.reset("welcome", expected_version=3, actor="admin", reason=LONG_REASON)
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    site = SiteProcess(env=env, log_path=tmp_path / "site.log")
    site.migrate()
    username = readme_superuser(env)
    with site, chromium() as browser:
        for size, viewport in SIZES.items():
            for scheme in SCHEMES:
                context = browser.new_context(viewport=viewport, color_scheme=scheme, bypass_csp=True)
                page = context.new_page()
                admin_login(page, site.url, username=username, password=PASSWORD)
                look_at_the_counter_list(page, viewport["width"], f"{size} {scheme}")
                look_at_a_counter(page, site.url, viewport["width"], f"{size} {scheme}")
                add_a_counter(page, site.url, f"launch-{size}-{scheme}", f"{size} {scheme}")
                context.close()


def add_a_counter(page, url: str, name: str, what: str) -> None:
    """The Add counter form, filled in and sent: the new counter's page says it was registered."""
    page.goto(f"{url}/admin/counters/counter/")
    page.click("text=Add counter")
    screenshot(page, f"admin-add-{what.replace(' ', '-')}.png")
    assert sideways_overflow(page) <= 0
    assert axe_violations(page) == [], f"axe on the add form, {what}"
    page.fill("#id_name", name)
    page.fill("#id_title", "Launch")
    page.fill("#id_start", "250")
    page.click("input[type=submit][value='Register counter']")
    expect(page.locator(".messagelist")).to_contain_text(f"Counter {name} was registered.")
    expect(page.locator("#counter-value")).to_have_text("250")


def look_at_the_counter_list(page, width: int, what: str) -> None:
    page.click("a[href='/admin/counters/counter/']")
    screenshot(page, f"admin-list-{what.replace(' ', '-')}.png")
    assert sideways_overflow(page) <= 0, f"{what}: the list scrolls sideways"
    assert_list_readable(page, width, what)
    assert axe_violations(page) == [], f"axe on the counter list, {what}"
    ticks = page.locator("#result_list tbody input.action-select")
    assert ticks.count() > 5
    page.check("#action-toggle")
    assert all(ticks.nth(i).is_checked() for i in range(ticks.count()))
    page.uncheck("#action-toggle")
    assert not any(ticks.nth(i).is_checked() for i in range(ticks.count()))


def look_at_a_counter(page, url: str, width: int, what: str) -> None:
    page.goto(f"{url}/admin/counters/counter/welcome/")
    expect(page.locator("#reset-history")).to_contain_text("Counted twice")
    screenshot(page, f"admin-counter-{what.replace(' ', '-')}.png")
    assert sideways_overflow(page) <= 0, f"{what}: the counter page scrolls sideways"
    history = page.locator("#reset-history").bounding_box()
    assert history["x"] + history["width"] <= width + 0.5, f"{what}: the reset history runs off the page"
    for box in boxes(page, "#reset-history tbody td"):
        assert box["x"] + box["width"] <= width + 0.5, f"{what}: a reset history cell is cut off"
    assert axe_violations(page) == [], f"axe on a counter, {what}"
