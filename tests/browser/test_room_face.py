"""Room pages as people meet them in Chromium: the audience's page on a phone and a laptop, present mode on a
projector, light and dark (without its controls for staff who may only view polls); axe-core finds nothing,
nothing scrolls sideways, the QR code Chromium draws decodes (zxing-cpp) to the join address, and the code
box leads to the poll."""

from __future__ import annotations

import pytest
import zxingcpp
from playwright.sync_api import expect

from tests.support.browser import (
    admin_login,
    axe_violations,
    create_staff,
    screenshot,
    sideways_overflow,
    watched,
)
from tests.support.rooms import LAPTOP, PASSWORD, PHONE, presenter, room_site

pytestmark = [pytest.mark.browser, pytest.mark.processes]

LIVE_MS = 20_000
SIZES = {"phone": PHONE, "laptop": LAPTOP}
SCHEMES = ("light", "dark")
QR_PIXELS = 330  # the code drawn at 10 pixels a module (version 3 with its quiet zone: 37 modules)
# Draw the page's QR <svg> on a canvas as Chromium renders it; answer its grey levels, row by row.
QR_PIXELS_JS = """([svg, size]) => new Promise((resolve, reject) => {
  const image = new Image();
  image.onload = () => {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = size;
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0, size, size);
    const rgba = context.getImageData(0, 0, size, size).data;
    const grey = new Array(size * size);
    for (let i = 0; i < grey.length; i++) {
      grey[i] = Math.round((rgba[4 * i] + rgba[4 * i + 1] + rgba[4 * i + 2]) / 3);
    }
    resolve(grey);
  };
  image.onerror = reject;
  const xml = new XMLSerializer().serializeToString(svg);
  image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(xml);
})"""


@pytest.fixture(scope="module")
def room(dynamodb_local, tmp_path_factory):
    with room_site(dynamodb_local, tmp_path_factory.mktemp("room-face")) as room:
        yield room


def checked(page, what: str) -> None:
    """The page as it should be anywhere: live, accessible, no sideways scroll, no script error."""
    expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=LIVE_MS)
    assert axe_violations(page) == [], what
    assert sideways_overflow(page) <= 0, what
    assert page.problems == [], what


def test_audience_pages_of_each_kind_at_both_sizes_light_and_dark(room, browser):
    for poll in ("a-colour", "b-talks", "c-rating"):
        for size, viewport in SIZES.items():
            for scheme in SCHEMES:
                context = browser.new_context(viewport=viewport, color_scheme=scheme, bypass_csp=True)
                page = context.new_page()
                page.problems = []
                page.on("pageerror", lambda exc, page=page: page.problems.append(str(exc)))
                page.goto(room.url(poll))
                checked(page, f"{poll} {size} {scheme}")
                buttons = page.locator("button[data-vote]")
                assert buttons.count() == len(room.polls[poll].options)
                heights = [box["height"] for box in (b.bounding_box() for b in buttons.all())]
                assert min(heights) >= 44, f"tap targets of {poll}: {heights}"  # WCAG 2.5.5's 44 px
                screenshot(page, f"room-{poll}-{size}-{scheme}.png")
                context.close()


def test_present_mode_at_both_sizes_light_and_dark(room, browser):
    for size, viewport in SIZES.items():
        for scheme in SCHEMES:
            page = presenter(browser, room, viewport=viewport, scheme=scheme, bypass_csp=True)
            page.goto(room.url("a-colour", present=True))
            checked(page, f"present {size} {scheme}")
            question = page.locator("h1#room-question")
            if size == "laptop":
                # Readable from the back of a room: the question at least 40 px, the bars' labels 24 px.
                assert float(question.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 40
                label = page.locator(".room-option .label").first
                assert float(label.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 24
                assert page.locator(".present-qr svg").bounding_box()["width"] >= 200
            screenshot(page, f"room-present-{size}-{scheme}.png")
            page.context.close()


def test_the_qr_code_chromium_draws_decodes_to_the_join_address(room, browser):
    page = presenter(browser, room)
    page.goto(room.url("b-talks", present=True))
    svg = page.locator(".present-qr svg").element_handle()
    grey = page.evaluate(QR_PIXELS_JS, [svg, QR_PIXELS])
    image = memoryview(bytes(grey)).cast("B", (QR_PIXELS, QR_PIXELS))
    decoded = [code.text for code in zxingcpp.read_barcodes(image)]
    assert decoded == [room.url("b-talks")]
    assert page.locator(".join-address").inner_text() == room.url("b-talks").split("://", 1)[1]
    page.context.close()


def test_the_code_box_takes_a_code_typed_in_small_letters(room, browser):
    context = browser.new_context(viewport=PHONE, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{room.site.url}/p")
    assert axe_violations(page) == []
    page.fill("#code", "zzzzz")
    page.click("button[type=submit]")
    expect(page.locator("#code-error")).to_contain_text("No poll has this code")
    assert axe_violations(page) == []
    page.fill("#code", room.polls["c-rating"].code.lower())
    page.click("button[type=submit]")
    page.wait_for_url(room.url("c-rating"))
    expect(page.locator("h1")).to_have_text("How was tonight's talk?")
    context.close()


def test_the_audience_page_fits_a_320_px_phone(room, browser):
    context = browser.new_context(viewport={"width": 320, "height": 640})
    page = context.new_page()
    for poll in ("a-colour", "b-talks", "c-rating"):
        page.goto(room.url(poll))
        assert sideways_overflow(page) <= 0, poll
        boxes = [button.bounding_box() for button in page.locator("button[data-vote]").all()]
        assert min(box["height"] for box in boxes) >= 44 and min(box["width"] for box in boxes) >= 44, poll
    screenshot(page, "room-c-rating-320.png")
    context.close()


def test_present_mode_goes_full_screen_with_f_and_keeps_still_for_reduced_motion(room, browser):
    page = presenter(browser, room, reduced_motion="reduce")
    page.goto(room.url("a-colour", present=True))
    bar = page.locator(".room-option rect[data-bar]").first
    assert bar.evaluate("e => getComputedStyle(e).transitionDuration") == "0s"
    page.keyboard.press("f")
    page.wait_for_function("document.fullscreenElement !== null")
    expect(page.locator("header.top")).to_be_hidden()
    page.keyboard.press("f")
    page.wait_for_function("document.fullscreenElement === null")
    page.emulate_media(reduced_motion="no-preference")
    assert bar.evaluate("e => getComputedStyle(e).transitionDuration") != "0s"
    page.context.close()


def test_staff_open_present_mode_from_the_list_at_p(room, browser):
    page = presenter(browser, room, bypass_csp=True)
    page.goto(f"{room.site.url}/p")
    assert axe_violations(page) == []
    page.click("text=How was tonight's talk?")
    page.wait_for_url(room.url("c-rating", present=True))
    screenshot(page, "room-present-rating.png")
    page.context.close()


def test_present_mode_for_view_only_staff_has_no_controls_and_r_or_c_change_nothing(room, browser):
    create_staff(room.site.env, username="viewer", password=PASSWORD, permissions=("view_poll",))
    page = watched(browser.new_context(viewport=LAPTOP, bypass_csp=True))
    admin_login(page, room.site.url, username="viewer", password=PASSWORD)
    page.goto(room.url("a-colour", present=True))
    checked(page, "present mode, view only")
    expect(page.locator('[data-room-counter="a-colour.red"]')).to_be_visible()
    expect(page.locator("button[data-action=visibility], button[data-action=open]")).to_have_count(0)
    expect(page.locator(".present-help")).not_to_contain_text("reveal")
    for key in ("r", "c"):
        page.keyboard.press(key)
        expect(page.locator("[data-vote-status]")).to_have_text(
            "You may watch this poll here but not control it: that needs permission to change polls."
        )
    poll = room.store.get_poll("a-colour")
    assert (poll.revealed, poll.closed) == (False, False)
    expect(page.locator("[data-state-results]")).to_have_text("Results hidden")
    assert page.problems == []
    page.context.close()
