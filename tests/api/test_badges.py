"""Count badges: valid SVG with the exact total, escaped text, counting only when the counter opted in."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from django.test import Client

from counters import services
from counters.domain.values import CounterDefinition

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = "<script>alert(1)</script> & \"quotes\" 'too' ]]> \x07bell"


def parsed(response) -> ET.Element:
    """The badge parsed by an XML parser (which refuses anything that is not well-formed)."""
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
    root = ET.fromstring(response.content)
    assert root.tag == f"{SVG}svg"
    return root


def texts(root: ET.Element) -> list[str]:
    """What the badge says: its title, then its label and number (each drawn once, shadow left out)."""
    title = root.find(f"{SVG}title").text
    drawn = [t.text for t in root.iter(f"{SVG}text") if t.get("aria-hidden") != "true"]
    return [title, *drawn]


@pytest.fixture
def browser() -> Client:
    return Client()


def test_a_badge_shows_the_title_and_the_exact_total(browser, memory_demo_store):
    memory_demo_store.increment("docs", kind="views", by=1233)
    memory_demo_store.increment("docs", kind="views")

    root = parsed(browser.get("/badge/docs.svg"))

    assert texts(root) == ["Documentation: 1,234", "Documentation", "1,234"]
    assert root.get("height") == "20" and int(root.get("width")) > 60


def test_a_badge_can_show_todays_unique_visitors_of_a_page(memory_demo_store):
    person = Client(HTTP_USER_AGENT="Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
    for _ in range(3):
        person.get("/pages/docs/")
    shown = texts(parsed(person.get("/badge/docs.svg", {"show": "visitors"})))
    assert shown[-1] == "1 today", "three views by one person are one visitor"


def test_a_label_replaces_the_title_and_votes_show_too(browser, memory_demo_store):
    services.vote_cast(poll_id="language", voter="v1", option="rust")
    root = parsed(browser.get("/badge/language.rust.svg", {"label": "Rust fans"}))
    assert texts(root) == ["Rust fans: 1", "Rust fans", "1"]


def test_hostile_text_is_escaped_into_valid_svg(browser, memory_demo_store):
    memory_demo_store.define_counter(CounterDefinition(name="evil", kind="views", title=HOSTILE))

    for response in (browser.get("/badge/evil.svg"), browser.get("/badge/docs.svg", {"label": HOSTILE})):
        root = parsed(response)
        body = response.content.decode()
        assert "<script" not in body and "]]>" not in body and "\x07" not in body
        assert root.find(f".//{SVG}script") is None
        assert texts(root)[1] == "<script>alert(1)</script> & \"quotes\" 'too' ]]> bell"


def test_a_long_title_is_shortened_and_a_long_label_refused(browser, memory_demo_store):
    memory_demo_store.define_counter(CounterDefinition(name="long", kind="views", title="x" * 150))
    assert texts(parsed(browser.get("/badge/long.svg")))[1] == "x" * 63 + "…"
    response = browser.get("/badge/docs.svg", {"label": "y" * 65})
    assert response.status_code == 400 and response.json()["error"] == "invalid"


def test_fetching_a_badge_counts_nothing_unless_the_counter_opted_in(browser, memory_demo_store):
    for _ in range(3):
        parsed(browser.get("/badge/welcome.svg"))
    assert memory_demo_store.get("welcome").value == 0, "off by default"

    services.badge_counting_set(name="welcome", enabled=True)
    shown = [texts(parsed(browser.get("/badge/welcome.svg")))[-1] for _ in range(3)]
    assert shown == ["1", "2", "3"], "each fetch counts one view and shows it"
    assert browser.head("/badge/welcome.svg").status_code == 200
    assert memory_demo_store.get("welcome").value == 3, "a HEAD counts nothing"

    services.badge_counting_set(name="welcome", enabled=False)
    parsed(browser.get("/badge/welcome.svg"))
    assert memory_demo_store.get("welcome").value == 3


def test_a_vote_counter_never_counts_a_fetch(browser, memory_demo_store):
    memory_demo_store.set_badge_counts("language.go", enabled=True)  # the service refuses; the store does not
    parsed(browser.get("/badge/language.go.svg"))
    assert memory_demo_store.get("language.go").value == 0


def test_the_badge_is_revalidated_each_time_and_a_known_one_is_a_304(browser, memory_demo_store):
    first = browser.get("/badge/docs.svg")
    assert first["Cache-Control"] == "public, no-cache"
    assert first["Cross-Origin-Resource-Policy"] == "cross-origin", "any site may show it"
    etag = first["ETag"]
    assert etag.startswith('"') and etag.endswith('"')

    again = browser.get("/badge/docs.svg", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == etag and again["Cache-Control"] == "public, no-cache"

    memory_demo_store.increment("docs", kind="views")
    moved = browser.get("/badge/docs.svg", headers={"If-None-Match": etag})
    assert moved.status_code == 200 and moved["ETag"] != etag


def test_big_numbers_have_thousands_separators(browser, memory_demo_store):
    memory_demo_store.increment("docs", kind="views", by=1_234_567)
    assert texts(parsed(browser.get("/badge/docs.svg")))[-1] == "1,234,567"


def no_cookies_in(response) -> None:
    """The answer sets no cookie and does not vary on the cookies sent."""
    assert not response.cookies, f"it set {list(response.cookies)}"
    assert "Set-Cookie" not in response
    assert "cookie" not in response.get("Vary", "").lower()


@pytest.mark.parametrize("show", ["views", "visitors"])
def test_a_badge_sets_no_cookie_for_a_new_visitor_nor_one_who_has_them(memory_demo_store, admin_user, show):
    services.badge_counting_set(name="docs", enabled=True)
    stranger = Client(HTTP_USER_AGENT="Mozilla/5.0 Firefox/133.0")
    no_cookies_in(stranger.get("/badge/docs.svg", {"show": show}))
    no_cookies_in(stranger.head("/badge/docs.svg", {"show": show}))
    assert not stranger.cookies, "nothing at all was kept"

    # A visitor who voted on the dashboard and is logged in to the admin: session, CSRF and voter cookies.
    regular = Client(HTTP_USER_AGENT="Mozilla/5.0 Firefox/133.0")
    assert regular.get("/").status_code == 200
    regular.force_login(admin_user)
    assert {"sessionid", "csrftoken", "counters_voter"} <= set(regular.cookies)
    first = regular.get("/badge/docs.svg", {"show": show})
    no_cookies_in(first)
    again = regular.get("/badge/docs.svg", {"show": show}, headers={"If-None-Match": first["ETag"]})
    assert again.status_code == (304 if show == "visitors" else 200), "a counted fetch moves the count"
    no_cookies_in(again)


@pytest.mark.parametrize(
    ("path", "query", "status"),
    [
        ("/badge/no-such-counter.svg", {}, 404),
        ("/badge/UPPER.svg", {}, 400),
        ("/badge/a..b.svg", {}, 400),
        ("/badge/docs.svg", {"show": "everything"}, 400),
        # A poll option has votes, not visitors: said plainly, not drawn as 0.
        ("/badge/language.python.svg", {"show": "visitors"}, 400),
    ],
)
def test_bad_names_and_choices_get_the_apis_json_errors_and_count_nothing(
    browser, memory_demo_store, path, query, status
):
    services.badge_counting_set(name="docs", enabled=True)
    response = browser.get(path, query)
    assert response.status_code == status
    assert set(response.json()) == {"error", "detail"}
    assert memory_demo_store.get("docs").value == 0


def test_other_methods_are_refused(browser, memory_demo_store):
    response = browser.post("/badge/docs.svg")
    assert response.status_code == 405 and response["Allow"] == "GET, HEAD"
