"""Present mode on every projector: at 1024x768, 1280x720, 1366x768 and 1920x1080, light and dark, a
six-option poll with a long question fits the screen with nothing scrolled or cut (each option, the state,
the results badge, the controls and the status line inside it), the join address breaks only after its
host, and a reveal or a close shows on the screen at once."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from counters.domain.values import PollDefinition, PollOption
from tests.support.browser import axe_violations, screenshot
from tests.support.rooms import presenter, room_site

pytestmark = [pytest.mark.browser, pytest.mark.processes]

PROJECTORS = {
    "1024x768": {"width": 1024, "height": 768},
    "1280x720": {"width": 1280, "height": 720},
    "1366x768": {"width": 1366, "height": 768},
    "1920x1080": {"width": 1920, "height": 1080},
}
QUESTION = (
    "Thinking about the last quarter's releases and everything the platform team shipped, which single "
    "change should we invest in first when planning the roadmap for the next two quarters of work?"
)
LABELS = (
    "Faster builds for every repository, including the very large monorepo",
    "Observability",
    "A self-service database provisioning portal with backups and restores built in",
    "Docs",
    "Fewer flaky tests in continuous integration",
    "Cost dashboards per team and per service",
)
VOTES = (5, 2, 9, 1, 3, 4)
RESULTS, STATE, STATUS = "[data-state-results]", "[data-state-open]", "[data-vote-status]"
# Parts of the page a presenter needs to see, each by its own selector.
SEEN = {
    "question": "h1#room-question",
    "state": "[data-state-open]",
    "badge": "[data-state-results]",
    "controls": ".present-controls",
    "status line": "[data-vote-status]",
    "join code": ".join-code",
    "join address": ".join-address",
}


def long_poll() -> PollDefinition:
    options = tuple(PollOption(id=f"o{i}", label=label) for i, label in enumerate(LABELS, 1))
    return PollDefinition(id="roadmap", question=QUESTION, options=options, results="revealed")


@pytest.fixture(scope="module")
def room(dynamodb_local, tmp_path_factory):
    with room_site(dynamodb_local, tmp_path_factory.mktemp("present-fit"), polls=[long_poll()]) as room:
        for option, votes in zip(room.polls["roadmap"].options, VOTES, strict=True):
            for n in range(votes):
                room.store.cast_vote("roadmap", voter=f"voter-{option.id}-{n}", option=option.id)
        yield room


def inside(page, selector: str) -> bool:
    """Whether every element matching `selector` lies wholly in the viewport (and has a size)."""
    return page.evaluate(
        """selector => [...document.querySelectorAll(selector)].every(e => {
            const r = e.getBoundingClientRect();
            return r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0
                && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
        })""",
        selector,
    )


def cut(page) -> list[str]:
    """Texts of the question, labels and join lines that overflow their own box (drawn cut or hidden)."""
    return page.evaluate(
        """() => [...document.querySelectorAll(
                 "#room-question, .room-option .label, .room-option .result, .join-line, .present-stats"
             )].filter(e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
             .map(e => e.textContent.trim().slice(0, 40))"""
    )


def lines_of(page, selector: str) -> list[str]:
    """The text of each line box the element is drawn in, as the browser wrapped it."""
    return page.evaluate(
        """selector => {
            const node = document.querySelector(selector), range = document.createRange(), lines = [];
            const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
            let top = null;
            while (walker.nextNode()) {
                const text = walker.currentNode;
                for (let i = 0; i < text.length; i++) {
                    range.setStart(text, i); range.setEnd(text, i + 1);
                    const y = Math.round(range.getBoundingClientRect().top);
                    if (top === null || Math.abs(y - top) > 2) { lines.push(""); top = y; }
                    lines[lines.length - 1] += text.data[i];
                }
            }
            return lines;
        }""",
        selector,
    )


def fitted(page) -> None:
    """Wait until present mode has fitted its type and drawn the live totals."""
    page.wait_for_function("document.documentElement.getAttribute('data-fitted') === 'true'")
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(PROJECTORS))
def test_a_long_six_option_poll_fits_each_projector(room, browser, size, scheme):
    page = presenter(browser, room, viewport=PROJECTORS[size], scheme=scheme)
    page.goto(room.url("roadmap", present=True))
    fitted(page)
    scroll = page.evaluate("[document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight]")
    assert scroll[0] <= PROJECTORS[size]["width"] and scroll[1] <= PROJECTORS[size]["height"], scroll
    assert page.locator(".room-option").count() == 6
    assert inside(page, ".room-option"), "an option lies outside the screen"
    for what, selector in SEEN.items():
        assert inside(page, selector), f"{what} outside the screen at {size}"
    assert cut(page) == []
    # The leading option is marked, and its bar is the longest.
    expect(page.locator("li.leading")).to_have_attribute("data-option", "o3")
    assert page.locator("li.leading .lead").is_visible()
    # Wrapped, if at all, only after the host: the host and the code each stay on one line.
    lines = lines_of(page, ".join-address")
    host, code = room.site.url.split("://", 1)[1], room.polls["roadmap"].code
    assert lines in ([f"{host}/p/{code}"], [f"{host}/", f"p/{code}"]), lines
    assert len(lines_of(page, ".join-code")) == 1
    assert page.problems == []
    screenshot(page, f"present-fit-{size}-{scheme}.png")
    page.context.close()


def bar_contrast(page) -> float:
    """The contrast ratio of the leading option's bar against its card, as computed colours give it."""
    return page.evaluate(
        """() => {
            const rgb = c => c.match(/[0-9.]+/g).slice(0, 3).map(Number);
            const lum = c => { const [r, g, b] = rgb(c).map(v => { v /= 255;
                return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
            const bar = getComputedStyle(document.querySelector("li.leading rect[data-bar]")).fill;
            const card = getComputedStyle(document.querySelector("li.leading .room-option")).backgroundColor;
            const [a, b] = [lum(bar), lum(card)].sort((x, y) => y - x);
            return (a + 0.05) / (b + 0.05);
        }"""
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_bars_stand_out_on_a_projector(room, browser, scheme):
    page = presenter(browser, room, viewport=PROJECTORS["1280x720"], scheme=scheme)
    page.goto(room.url("roadmap", present=True))
    fitted(page)
    assert bar_contrast(page) >= 3
    page.context.close()


def test_reveal_and_close_show_on_the_screen_at_once(room, browser):
    page = presenter(browser, room, viewport=PROJECTORS["1280x720"], bypass_csp=True)
    page.goto(room.url("roadmap", present=True))
    fitted(page)
    assert axe_violations(page) == []
    badge, state, status = (page.locator(s) for s in (RESULTS, STATE, STATUS))
    expect(badge).to_have_text("Results hidden")
    page.keyboard.press("r")
    expect(badge).to_have_text("Results revealed")
    expect(status).to_have_text("Results revealed to the audience.")
    page.keyboard.press("c")
    expect(state).to_have_text("Closed")
    expect(status).to_have_text("Poll closed.")
    expect(page.locator("button[data-action=open]")).to_contain_text("Reopen")
    for what in (RESULTS, STATE, STATUS, "button[data-action=open]"):
        assert inside(page, what), what
    screenshot(page, "present-fit-revealed-and-closed.png")
    assert axe_violations(page) == []
    page.keyboard.press("c")
    expect(state).to_have_text("Open")
    page.keyboard.press("r")
    expect(badge).to_have_text("Results hidden")
    assert page.problems == []
    page.context.close()
