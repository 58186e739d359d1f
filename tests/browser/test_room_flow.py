"""A room in Chromium: a presenter on a laptop and three phones join by code, vote, see nothing of the hidden
results (not in the page, the API's answers or any socket frame) until the presenter reveals them with R,
see C close and reopen it, then see a timed poll close on its own and its results appear; multiple choice
and a rating; present mode counts the phones on the page and moves on with N."""

from __future__ import annotations

import json
import re
import time
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from counters.domain.values import PollDefinition, PollOption
from tests.support.browser import chromium, screenshot
from tests.support.clocks import SiteClock
from tests.support.hidden_totals import leaks
from tests.support.rooms import phone, presenter, room_site
from tests.support.timing import scaled
from tests.support.voting import HttpVoter

pytestmark = [pytest.mark.browser, pytest.mark.processes]

LIVE_MS = 20_000
TIMER_MINUTES = 10  # the timed poll's life on the site's clock, which the test moves on when all have voted
# A poll whose totals everyone sees: a vote on it, seen on a phone, marks "every earlier frame arrived".
SENTINEL_POLL, SENTINEL_OPTION = "b-talks", "types"  # multiple choice: each vote adds a pick


def frames_of(page) -> list[str]:
    """Collect every frame the page's websockets receive, from now on, in `page.frames_seen`."""
    page.frames_seen = []

    def watch(ws) -> None:
        ws.on(
            "framereceived",
            lambda payload: page.frames_seen.append(payload if isinstance(payload, str) else ""),
        )

    page.on("websocket", watch)
    return page.frames_seen


def parsed(frames: list[str]) -> list[dict]:
    """The frames as JSON messages."""
    return [json.loads(raw) for raw in frames if raw]


def sentinel_reaches(room, pages) -> None:
    """Vote on a poll whose totals anyone sees, and wait until every page's socket has received the new
    total: whatever was pushed to them before that vote has arrived by then."""
    HttpVoter(room.site.url).visit().vote(SENTINEL_POLL, SENTINEL_OPTION, picked=True).raise_for_status()
    name = f"{SENTINEL_POLL}.{SENTINEL_OPTION}"
    value = room.store.get(name).value
    for page in pages:
        deadline = time.monotonic() + scaled(LIVE_MS / 1000)
        while not any(
            c.get("name") == name and c.get("value") == value
            for message in parsed(page.frames_seen)
            for c in message.get("counters", [])
        ):
            assert time.monotonic() < deadline, f"the sentinel {name}={value} never reached the page"
            page.wait_for_timeout(50)  # Playwright hands over the socket's frames while it waits


def join_by_code(page, site_url: str, code: str) -> None:
    """Type the code, in small letters, into the box at /p."""
    page.goto(f"{site_url}/p")
    page.fill("#code", code.lower())
    page.click("button[type=submit]")
    page.wait_for_url(f"{site_url}/p/{code}")


def hidden_everywhere(page, room, poll: str) -> None:
    """Nothing of the poll's totals on the page, in the API's answer to this phone, or in its frames."""
    html = page.content()
    assert not re.search(r'data-value="|data-counter="[^"]*">\d', html)
    expect(page.locator("[data-hidden-note]")).to_be_visible()
    answer = page.request.get(f"{room.site.url}/api/polls/{poll}").json()
    shown = answer.get("poll", answer)
    assert shown["results_visible"] is False
    assert all("votes" not in option for option in shown["options"])
    assert leaks(parsed(page.frames_seen), poll) == []


def test_presenter_and_three_phones_run_a_hidden_poll_and_a_timed_one(dynamodb_local, tmp_path):
    clock = SiteClock(tmp_path / "clock")
    with room_site(dynamodb_local, tmp_path, **clock.env()) as room, chromium() as browser:
        code = room.polls["a-colour"].code
        stage = presenter(browser, room)
        stage.goto(room.url("a-colour", present=True))
        expect(stage.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)

        phones = [phone(browser) for _ in range(3)]
        for page in phones:
            frames_of(page)
        join_by_code(phones[0], room.site.url, code)
        for page in phones[1:]:
            page.goto(room.url("a-colour"))
        for page in phones:
            expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)
        expect(stage.locator(".present-viewing")).to_have_text(
            "3 people viewing the poll now", timeout=LIVE_MS
        )

        for page, option in zip(phones, ("red", "red", "green"), strict=True):
            page.click(f'button[data-vote="{option}"]')
            expect(page.locator(f'li[data-option="{option}"] button')).to_have_attribute(
                "aria-pressed", "true"
            )
            expect(page.locator("[data-vote-status]")).to_contain_text("Your vote:")
        expect(stage.locator('[data-room-counter="a-colour.red"]')).to_have_text("2", timeout=LIVE_MS)
        expect(stage.locator('[data-room-counter="a-colour.green"]')).to_have_text("1")
        expect(stage.locator("[data-voters]")).to_have_text("3", timeout=LIVE_MS)
        sentinel_reaches(room, phones)
        for page in phones:
            hidden_everywhere(page, room, "a-colour")
        screenshot(phones[0], "room-flow-phone-hidden.png")
        screenshot(stage, "room-flow-present-hidden.png")

        stage.keyboard.press("r")
        expect(stage.locator("[data-state-results]")).to_have_text("Results revealed", timeout=LIVE_MS)
        for page in phones:
            expect(page.locator('[data-room-counter="a-colour.red"]')).to_have_text("2", timeout=LIVE_MS)
            expect(page.locator('li[data-option="red"] [data-share]')).to_have_text("67%")
            expect(page.locator("[data-total]")).to_have_text("3")
            assert leaks(parsed(page.frames_seen), "a-colour"), "the reveal reached the socket"
        screenshot(phones[1], "room-flow-phone-revealed.png")
        for page in phones:
            del page.frames_seen[:]  # from the hide on: its own frame, and every one after it
        stage.keyboard.press("r")
        for page in phones:
            expect(page.locator("[data-hidden-note]")).to_be_visible(timeout=LIVE_MS)
            expect(page.locator('[data-room-counter="a-colour.red"]')).to_have_text("")
        # Hidden again: a vote moved now reaches the presenter, and nothing of it any phone.
        phones[2].click('button[data-vote="blue"]')
        expect(stage.locator('[data-room-counter="a-colour.blue"]')).to_have_text("1", timeout=LIVE_MS)
        sentinel_reaches(room, phones)
        for page in phones:
            hidden_everywhere(page, room, "a-colour")
        stage.keyboard.press("c")  # closed by the presenter: every phone stops taking votes at once
        expect(stage.locator("[data-state-open]")).to_have_text("Closed", timeout=LIVE_MS)
        for page in phones:
            expect(page.locator("[data-closed-note]")).to_be_visible(timeout=LIVE_MS)
            expect(page.locator('button[data-vote="blue"]')).to_be_disabled()
        stage.keyboard.press("c")
        for page in phones:
            expect(page.locator('button[data-vote="blue"]')).to_be_enabled(timeout=LIVE_MS)

        # A poll closing on its timer: its results ("when closed") appear on every phone when it does.
        closes_at = (clock.utc_now() + timedelta(minutes=TIMER_MINUTES)).isoformat(timespec="seconds")
        options = tuple(PollOption(id=o, label=o.title()) for o in ("tea", "coffee"))
        timed = room.store.create_poll(PollDefinition(
            id="d-timer", question="Tea or coffee at the break?", options=options, results="closed",
            closes_at=closes_at,
        ))  # fmt: skip
        for page, option in zip(phones, ("tea", "coffee", "tea"), strict=True):
            join_by_code(page, room.site.url, timed.code)
            expect(page.locator("[data-countdown]")).to_be_visible()
            page.click(f'button[data-vote="{option}"]')
            expect(page.locator(f'li[data-option="{option}"] button')).to_have_attribute(
                "aria-pressed", "true"
            )
        expect(phones[0].locator("[data-countdown-left]")).to_have_text(re.compile(r"^(9:[0-5]\d|10:00)$"))
        clock.advance(TIMER_MINUTES * 60)  # the closing time on the site's clock: its timer wakes
        for page in phones:
            expect(page.locator("[data-closed-note]")).to_be_visible(timeout=LIVE_MS)
            expect(page.locator('button[data-vote="tea"]')).to_be_disabled()
            expect(page.locator('[data-room-counter="d-timer.tea"]')).to_have_text("2", timeout=LIVE_MS)
        screenshot(phones[2], "room-flow-phone-closed.png")

        # The presenter moves on with N: the next poll's present mode.
        stage.keyboard.press("n")
        stage.wait_for_url(room.url("b-talks", present=True))
        expect(stage.locator("h1")).to_have_text("Which talks do you want next month? Pick two.")
        picker = phones[0]
        picker.goto(room.url("b-talks"))
        for option in ("caching", "queues"):
            picker.click(f'button[data-vote="{option}"]')
            expect(picker.locator(f'li[data-option="{option}"] button')).to_have_attribute(
                "aria-pressed", "true"
            )
        picker.click('button[data-vote="search"]')
        expect(picker.locator("[data-vote-status]")).to_have_text(re.compile("at most 2"))
        expect(stage.locator('[data-room-counter="b-talks.queues"]')).to_have_text("1", timeout=LIVE_MS)
        picker.click('button[data-vote="caching"]')  # taken back
        expect(picker.locator('li[data-option="caching"] button')).to_have_attribute("aria-pressed", "false")
        expect(stage.locator('[data-room-counter="b-talks.caching"]')).to_have_text("0", timeout=LIVE_MS)
        rater = phones[1]
        rater.goto(room.url("c-rating"))
        rater.click('button[data-vote="4"]')
        expect(rater.locator("[data-vote-status]")).to_have_text("Your rating: 4 of 5.")
        expect(rater.locator("[data-hidden-note]")).to_have_text("Results show when the poll closes.")
        for page in (stage, *phones):
            assert page.problems == []
    assert "Traceback" not in room.site.log_text()
