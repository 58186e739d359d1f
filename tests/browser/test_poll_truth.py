"""One truth about a poll past its closing time, as staff meet it in Chromium: the admin's poll list and poll
page say closed and offer no "Close", `/p` says "(closed)", present mode says Closed; the admin's poll page
fits a 390 px phone; axe finds nothing on these pages at 390 and 1280 px."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from counters.domain.values import PollDefinition, PollOption
from tests.support.browser import axe_violations, screenshot, sideways_overflow
from tests.support.rooms import presenter, room_site

pytestmark = [pytest.mark.browser, pytest.mark.processes]

SIZES = {"390": {"width": 390, "height": 844}, "1280": {"width": 1280, "height": 800}}
PAST = "2026-01-01T09:00:00Z"


def polls() -> list[PollDefinition]:
    # Long ids make long counter names: the phone's page still must not scroll sideways.
    options = tuple(PollOption(id=o, label=o.title()) for o in ("english-breakfast-tea", "filter-coffee"))
    return [
        PollDefinition(id="morning-break-timed-out", options=options, closes_at=PAST, results="revealed",
                       question="Tea or coffee at the morning break of the conference?"),
        PollDefinition(id="still-open", question="Tea or coffee this afternoon?", options=options),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def room(dynamodb_local, tmp_path_factory):
    with room_site(dynamodb_local, tmp_path_factory.mktemp("poll-truth"), polls=polls()) as room:
        room.store.cast_vote("still-open", voter="voter-1", option="filter-coffee")
        yield room


@pytest.mark.parametrize("size", list(SIZES))
def test_a_poll_past_its_closing_time_reads_closed_for_staff(room, browser, size):
    page = presenter(browser, room, viewport=SIZES[size], bypass_csp=True)
    page.goto(f"{room.site.url}/admin/counters/poll/")
    expect(page.locator('tr[data-poll="morning-break-timed-out"] td').nth(3)).to_have_text("closed")
    expect(page.locator('tr[data-poll="still-open"] td').nth(3)).to_have_text("open")
    assert axe_violations(page) == []
    page.goto(f"{room.site.url}/admin/counters/poll/morning-break-timed-out/")
    expect(page.locator("#poll-state")).to_have_text("closed by its closing time")
    expect(page.locator("#poll-settings")).to_contain_text(f"closed at {PAST}")
    expect(page.locator("#poll-settings")).to_contain_text("results shown when revealed (hidden now)")
    expect(page.locator("#closed-form")).to_have_count(0)
    expect(page.locator("#closed-note")).to_contain_text("cannot be reopened")
    assert sideways_overflow(page) <= 0
    assert axe_violations(page) == []
    screenshot(page, f"admin-poll-closed-{size}.png")
    page.goto(f"{room.site.url}/admin/counters/poll/still-open/")
    expect(page.locator("#poll-settings")).to_contain_text("1 voter ·")
    expect(page.locator("#closed-form")).to_have_count(1)
    assert sideways_overflow(page) <= 0
    page.goto(f"{room.site.url}/p")
    expect(page.locator("li", has_text="morning break")).to_contain_text("(closed)")
    expect(page.locator("li", has_text="this afternoon")).not_to_contain_text("(closed)")
    assert axe_violations(page) == []
    page.goto(room.url("morning-break-timed-out", present=True))
    expect(page.locator("[data-state-open]")).to_have_text("Closed")
    expect(page.locator("button[data-action=open]")).to_be_disabled()
    page.keyboard.press("c")
    status = page.locator("[data-vote-status]")
    expect(status).to_have_text("Closed at its closing time: it cannot be reopened.")
    assert room.store.get_poll("morning-break-timed-out").closed is False  # no flag flipped: closed by time
    assert page.problems == []
    page.context.close()
