"""A talk in Chromium: a presenter on a 1280x720 projector laptop authors a talk of four polls by keyboard
alone, puts the last one first (and moves one more by drag), and opens each in turn with N; three phones
that joined with the talk's code follow every poll the presenter opens. The new pages pass axe at 390
and 1280 px, with no sideways scroll."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.browser import axe_violations, sideways_overflow
from tests.support.rooms import phone, presenter, room_site
from tests.support.timing import scaled

pytestmark = [pytest.mark.browser, pytest.mark.processes]

PROJECTOR = {"width": 1280, "height": 720}
FOLLOW_MS = 20_000  # phones ask every 2 s; a loaded machine may take longer
# (question, options, number of ArrowDown presses on Kind, on Results)
POLLS = [
    ("Which colour should the new logo be?", ["Red", "Green", "Blue"], 0, 3),
    ("Which talks do you want next month?", ["Caching", "Queues", "Search", "Types"], 1, 0),
    ("How was tonight's talk?", [], 2, 2),
    ("Coffee or tea at the break?", ["Coffee", "Tea"], 0, 1),
]


def tab_to(page, selector: str, *, limit: int = 80) -> None:
    """Press Tab until the element `selector` names has the keyboard (as a keyboard user would)."""
    for _ in range(limit):
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def add_poll_by_keyboard(
    page, question: str, options: list[str], kind_steps: int, results_steps: int
) -> None:
    """Fill the Add a poll form and send it with the keyboard only."""
    tab_to(page, "#question")
    page.keyboard.type(question)
    tab_to(page, "#options")
    page.keyboard.type("\n".join(options))
    tab_to(page, "#kind")
    for _ in range(kind_steps):
        page.keyboard.press("ArrowDown")
    tab_to(page, "#results")
    for _ in range(results_steps):
        page.keyboard.press("ArrowDown")
    tab_to(page, ".talk-add button[type=submit]")
    with page.expect_navigation():
        page.keyboard.press("Enter")


def drag(page, card, *, onto) -> None:
    """Drag `card` and drop it on the lower half of `onto`, as the page's script hears a mouse do it.

    The drag events are sent to the cards: headless Chromium makes none from Playwright's mouse."""
    data = page.evaluate_handle("new DataTransfer()")
    box = onto.bounding_box()
    card.dispatch_event("dragstart", {"dataTransfer": data})
    at = {"dataTransfer": data, "clientX": box["x"] + 30, "clientY": box["y"] + box["height"] - 8}
    onto.dispatch_event("dragover", at)
    onto.dispatch_event("drop", at)


def accessible_at_both_sizes(page, what: str) -> None:
    """axe finds nothing at 1280 and 390 px, and nothing scrolls sideways; the page's size kept after."""
    size = page.viewport_size
    for width, height in ((1280, 720), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        assert axe_violations(page) == [], f"{what} at {width}"
        assert sideways_overflow(page) <= 0, f"{what} at {width}"
    page.set_viewport_size(size)


@pytest.mark.timeout(300)
def test_a_presenter_authors_a_talk_by_keyboard_and_three_phones_follow_it(dynamodb_local, tmp_path, browser):
    with room_site(dynamodb_local, tmp_path) as room:
        laptop = presenter(browser, room, viewport=PROJECTOR, bypass_csp=True)
        laptop.goto(f"{room.site.url}/p/talks")
        accessible_at_both_sizes(laptop, "the talk list")
        tab_to(laptop, "#title")
        laptop.keyboard.type("Friday keynote")
        with laptop.expect_navigation():
            laptop.keyboard.press("Enter")
        assert laptop.url.endswith("/p/talks/friday-keynote")
        for poll in POLLS:
            add_poll_by_keyboard(laptop, *poll)
            expect(laptop.locator(".talk-poll h3").last).to_have_text(poll[0])
        # The last poll goes first: three presses of its Move up button, which keeps the keyboard each time.
        tab_to(laptop, f'button[aria-label="Move up: {POLLS[3][0]}"]')
        for _ in range(3):
            with laptop.expect_navigation():
                laptop.keyboard.press("Enter")
            focused = laptop.evaluate("document.activeElement.getAttribute('aria-label') || ''")
            assert focused in (f"Move up: {POLLS[3][0]}", "")  # at the top the button is disabled
        expect(laptop.locator(".talk-poll h3")).to_have_text([POLLS[i][0] for i in (3, 0, 1, 2)])
        # With a mouse: the second card dropped on the lower half of the third goes after it.
        cards = laptop.locator(".talk-poll")
        with laptop.expect_navigation():
            drag(laptop, cards.nth(1), onto=cards.nth(2))
        order = [POLLS[i][0] for i in (3, 1, 0, 2)]
        expect(laptop.locator(".talk-poll h3")).to_have_text(order)
        talk = room.store.get_talk("friday-keynote")
        kinds = [room.store.get_poll(poll_id).kind for poll_id in talk.poll_ids]
        assert kinds == ["single", "multi", "single", "rating"]
        assert room.store.get_poll(talk.poll_ids[2]).results == "revealed"
        accessible_at_both_sizes(laptop, "the talk page")
        assert laptop.problems == []

        phones = [phone(browser, bypass_csp=True) for _ in range(3)]
        for each in phones:
            each.goto(f"{room.site.url}/p/{talk.code.lower()}")
            expect(each.locator("#wait-title")).to_have_text("Friday keynote")
        accessible_at_both_sizes(phones[0], "the talk's waiting page")

        laptop.locator("body").focus()
        for number, question in enumerate(order):
            with laptop.expect_navigation():
                laptop.keyboard.press("n")  # on the talk page: open the first; in present mode: the next
            expect(laptop.locator("#room-question")).to_have_text(question)
            expect(laptop.locator(".join-code")).to_have_text(talk.code)
            for each in phones:
                expect(each.locator("#room-question")).to_have_text(question, timeout=scaled(FOLLOW_MS))
            if number == 0:  # a phone votes on a poll of the talk as on any poll
                phones[0].locator("[data-vote]").first.click()
                accessible_at_both_sizes(phones[1], "a poll on the talk's code")
                expect(phones[0].locator("[data-vote-status]")).not_to_have_text(
                    "", timeout=scaled(FOLLOW_MS)
                )
        assert room.store.get_talk("friday-keynote").current == talk.poll_ids[3]
        assert sum(1 for _ in room.store.poll_voters(talk.poll_ids[0])) == 1
        for page in (laptop, *phones):
            assert page.problems == []
