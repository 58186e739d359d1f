"""The admin reset in a real Chromium against the real site: a plain reset, then a conflict confirmed."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.browser import admin_login, chromium, screenshot, staff_site
from tests.support.site import site_env_for

USERNAME, PASSWORD = "staff", "a-long-test-password-42"


def dashboard_values(page, name: str) -> set[str]:
    """Every number the dashboard shows for a counter (its row in the pages table)."""
    return set(page.locator(f'span.count[data-counter="{name}"]').all_inner_texts())


@pytest.mark.browser
@pytest.mark.processes
def test_staff_resets_counters_in_the_admin_and_confirms_after_a_conflict(
    demo_store, dynamodb_local, tmp_path
):
    for _ in range(3):
        demo_store.increment("welcome", kind="views")
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    site = staff_site(env, tmp_path / "site.log", username=USERNAME, password=PASSWORD)
    with site, chromium() as browser:
        errors: list[str] = []
        viewer = browser.new_page()
        viewer.on("pageerror", lambda exc: errors.append(str(exc)))
        viewer.goto(f"{site.url}/")
        assert dashboard_values(viewer, "welcome") == {"3"}
        expect(viewer.locator("#connection")).to_have_attribute("data-state", "live")

        admin = browser.new_page(viewport={"width": 1200, "height": 900})
        admin.on("pageerror", lambda exc: errors.append(str(exc)))
        admin_login(admin, site.url, username=USERNAME, password=PASSWORD)
        admin.click("a[href='/admin/counters/counter/']")
        assert admin.inner_text('tr[data-counter="welcome"] td.value') == "3"
        screenshot(admin, "admin-counters.png")
        admin.click('tr[data-counter="welcome"] a')
        admin.fill("#id_reason", "launch day")
        admin.click("#reset-submit")
        assert admin.inner_text("h1") == "Reset welcome to 0?"
        assert demo_store.get("welcome").value == 3, "nothing is reset before the confirmation"
        screenshot(admin, "admin-reset-confirm.png")
        admin.click("#reset-confirm")
        assert "Reset welcome from 3 (version 3) to 0" in admin.inner_text(".messagelist")
        assert admin.inner_text("#counter-value") == "0"
        assert "launch day" in admin.inner_text("#reset-history")
        # The open dashboard drops to 0 by itself: the reset is pushed like any write.
        expect(viewer.locator('span.count[data-counter="welcome"]')).to_have_text(["0"])

        # Conflict: docs is counted after the admin's form was shown.
        admin.goto(f"{site.url}/admin/counters/counter/docs/")
        assert admin.inner_text("#counter-version") == "0"
        for _ in range(2):
            demo_store.increment("docs", kind="views")
        admin.fill("#id_reason", "cleanup")
        admin.click("#reset-submit")
        # The confirmation already tells that docs moved on since it was shown; confirming is refused.
        assert "changed since shown" in admin.inner_text('#reset-confirm-list tr[data-counter="docs"]')
        admin.click("#reset-confirm")
        conflict = admin.inner_text("#reset-conflict")
        assert admin.locator(".messagelist li").count() == 0, "the refusal is said once, on the page"
        assert "it is now 2 at version 2" in conflict and "Nothing was reset" in conflict
        assert demo_store.get("docs").value == 2
        assert admin.get_attribute("#reset-submit", "value") == "Confirm reset at version 2"
        assert admin.input_value("#id_reason") == "cleanup"
        screenshot(admin, "admin-reset-conflict.png")
        admin.click("#reset-submit")
        assert "Reset docs from 2 (version 2) to 0" in admin.inner_text(".messagelist")
        assert admin.locator(".messagelist li").count() == 1, "one message for one outcome"
        assert demo_store.get("docs").value == 0
        expect(viewer.locator('span.count[data-counter="docs"]')).to_have_text(["0"])
        viewer.reload()
        assert dashboard_values(viewer, "docs") == {"0"} and dashboard_values(viewer, "welcome") == {"0"}
        shot = screenshot(admin, "admin-reset.png")
        assert shot.stat().st_size > 10_000
        assert errors == []
