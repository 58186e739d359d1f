"""A vote button in Chromium whose vote transaction answer is lost: the page's own resend counts once."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from counters.store.dynamodb.clients import RETRY_ATTEMPTS
from tests.support.browser import chromium
from tests.support.voting import assert_poll_consistent, poll_tally

POLL = "language"
VOTE_WRITE = "TransactWriteItems"
# A vote's transaction holds the voter's record; a page view's first-visit transaction does not.
VOTE_ONLY = ("VOTER#",)


def option(page, option_id: str):
    return page.locator(f'[data-poll="{POLL}"] li[data-option="{option_id}"]')


@pytest.mark.browser
@pytest.mark.processes
def test_the_pages_own_resend_after_a_lost_vote_answer_counts_once(proxied_site, proxy, demo_store):
    before = poll_tally(demo_store, POLL)
    with chromium() as browser:
        page = browser.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        sent: list[tuple[str, int]] = []
        page.on(
            "requestfinished",
            lambda request: (
                sent.append((request.headers.get("idempotency-key"), request.response().status))
                if request.url.endswith(f"/api/polls/{POLL}/vote") and request.method == "POST"
                else None
            ),
        )
        page.goto(f"{proxied_site.url}/")
        page.wait_for_selector(f'[data-poll="{POLL}"][data-ready="true"]')
        # Every SDK attempt loses its answer, so the site answers 503 and the page resends by itself.
        proxy.arm("lost_response", operation=VOTE_WRITE, contains=VOTE_ONLY, times=RETRY_ATTEMPTS)

        option(page, "rust").locator("button").click()

        expect(option(page, "rust")).to_have_class("chosen", timeout=20_000)
        expect(option(page, "rust").locator(".count")).to_have_text(str(before["rust"] + 1))
        expect(option(page, "rust").locator("button")).to_have_attribute("aria-pressed", "true")
        expect(page.locator(f'[data-poll="{POLL}"] [data-vote-status]')).to_have_text("Your vote: Rust.")
        assert [status for _, status in sent] == [503, 200]
        assert len({key for key, _ in sent}) == 1 and sent[0][0], "the resend carries the same key"
        assert problems == []

    vote_writes = proxy.count(VOTE_WRITE, contains=VOTE_ONLY)
    assert vote_writes == RETRY_ATTEMPTS, "the resend was answered from the first commit"
    assert poll_tally(demo_store, POLL) == {**before, "rust": before["rust"] + 1}
    assert list(assert_poll_consistent(demo_store, POLL).values()) == ["rust"]
