"""Vote buttons in a real Chromium against a real site: the choice is marked, totals rise and move."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.browser import chromium, screenshot
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for
from tests.support.voting import assert_poll_consistent, poll_tally


def option(page, poll: str, option_id: str):
    return page.locator(f'[data-poll="{poll}"] li[data-option="{option_id}"]')


@pytest.mark.browser
@pytest.mark.processes
def test_click_to_vote_then_move_the_vote(demo_store, dynamodb_local, tmp_path):
    env = site_env_for(demo_store, dynamodb_local, tmp_path, COUNTERS_VOTE_RATE="0")
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as site, chromium() as browser:
        page = browser.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)

        response = page.goto(f"{site.url}/")
        # The site's own policy is strict: scripts and styles from this site only, nothing inline.
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
        page.wait_for_selector('[data-poll="language"][data-ready="true"]')

        option(page, "language", "python").locator("button").click()
        expect(option(page, "language", "python")).to_have_class("chosen")
        expect(option(page, "language", "python").locator(".count")).to_have_text("1")
        expect(option(page, "language", "python").locator("button")).to_have_attribute("aria-pressed", "true")
        expect(page.locator('[data-poll="language"] [data-vote-status]')).to_have_text("Your vote: Python.")
        expect(page.locator('rect[data-bar="language.python"]')).to_have_attribute("width", "100.00%")
        expect(option(page, "language", "python").locator("[data-share]")).to_have_text("100%")

        option(page, "language", "go").locator("button").click()
        expect(option(page, "language", "go")).to_have_class("chosen")
        screenshot(page, "dashboard-votes.png")
        expect(option(page, "language", "go").locator(".count")).to_have_text("1")
        expect(option(page, "language", "python").locator(".count")).to_have_text("0")
        expect(option(page, "language", "python")).not_to_have_class("chosen")
        assert poll_tally(demo_store, "language") == {"python": 0, "go": 1, "rust": 0, "typescript": 0}

        # A double-click is one vote: one Idempotency-Key for all it sends, so it counts once even where a
        # second send would count (the server answers a repeat for the option held `counted: false`, so the
        # totals alone could not tell). The choice survives a reload (rendered by the server).
        keys = []
        page.on("request", lambda request: keys.append(request.headers.get("idempotency-key"))
                if request.method == "POST" and "/vote" in request.url else None)  # fmt: skip
        option(page, "language", "rust").locator("button").dblclick()
        expect(option(page, "language", "rust").locator(".count")).to_have_text("1")
        expect(page.locator('[data-poll="language"] [data-vote-status]')).to_have_text("Your vote: Rust.")
        page.reload()  # a request the double-click made is on its way before the page is replaced
        assert len(keys) >= 1 and len(set(keys)) == 1, keys
        expect(option(page, "language", "rust")).to_have_class("chosen")
        expect(option(page, "language", "go").locator(".count")).to_have_text("0")

        page.locator('[data-poll="language"] [data-retract]').click()
        expect(option(page, "language", "rust").locator(".count")).to_have_text("0")
        expect(page.locator('[data-poll="language"] [data-vote-status]')).to_have_text(
            "Your vote was withdrawn."
        )
        expect(page.locator('[data-poll="language"] [data-retract]')).to_be_hidden()
        assert problems == []
    assert assert_poll_consistent(demo_store, "language") == {}
    assert demo_store.get("language.rust").version == 2
