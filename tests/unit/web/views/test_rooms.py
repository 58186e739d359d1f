"""Room pages through Django's test client on the memory store: join codes, hidden totals, staff only."""

from __future__ import annotations

import json
import re

import pytest

from counters.domain.values import PollDefinition, PollOption


def make_poll(store, poll_id: str = "room", **fields) -> PollDefinition:
    """A three-option poll stored with its join code."""
    options = tuple(PollOption(id=o, label=o.title()) for o in ("red", "green", "blue"))
    return store.create_poll(PollDefinition(id=poll_id, question="Which colour?", options=options, **fields))


def votes(store, poll: PollDefinition, **counts: int) -> None:
    """Cast `counts[option]` votes for each option, each from its own voter."""
    for option, count in counts.items():
        for n in range(count):
            store.cast_vote(poll.id, voter=f"anon:{option}{n}", option=option)


def staff_client(client, django_user_model):
    user = django_user_model.objects.create_user("presenter", password="pw", is_staff=True)
    client.force_login(user)
    return client


# Any count, share, total or average a page could show (the page's other numbers are its code and clock).
NUMBERS = re.compile(
    r'data-value="|data-version="|data-(?:share|total|average|voters)>[^<]|data-counter="[^"]*">[^<]'
)


@pytest.mark.django_db
def test_code_in_any_case_or_typed_in_the_box_leads_to_the_poll(client, memory_store):
    poll = make_poll(memory_store)
    assert re.fullmatch(r"[A-HJ-KMNP-Z2-9]{5}", poll.code)
    response = client.get(f"/p/{poll.code.lower()}")
    assert (response.status_code, response["Location"]) == (302, f"/p/{poll.code}")
    typed = f" {poll.code[:2].lower()}-{poll.code[2:]} "
    response = client.get("/p", {"code": typed})
    assert (response.status_code, response["Location"]) == (302, f"/p/{poll.code}")
    page = client.get(f"/p/{poll.code}")
    assert page.status_code == 200
    assert "Which colour?" in page.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("typed", ["ZZZZZ", "O0I1L", "abc", ""])
def test_unknown_or_malformed_codes_are_explained_in_the_box(client, memory_store, typed):
    make_poll(memory_store)
    response = client.get("/p", {"code": typed})
    assert response.status_code in (200, 404)
    assert 'role="alert"' in response.content.decode()
    assert client.get(f"/p/{typed or 'x'}").status_code in (400, 404)


@pytest.mark.django_db
def test_the_box_alone_asks_for_a_code(client, memory_store):
    response = client.get("/p")
    assert response.status_code == 200
    assert 'name="code"' in response.content.decode()
    assert 'role="alert"' not in response.content.decode()


@pytest.mark.django_db
def test_hidden_totals_are_not_in_the_audience_page_until_revealed(client, memory_store):
    poll = make_poll(memory_store, results="revealed")
    votes(memory_store, poll, red=17, green=11)
    html = client.get(f"/p/{poll.code}").content.decode()
    found = NUMBERS.search(html)
    assert not found, html[found.start() - 200 : found.end() + 50]
    assert "Results show when the presenter reveals them." in html


@pytest.mark.django_db
def test_always_visible_totals_are_drawn_on_the_audience_page(client, memory_store):
    poll = make_poll(memory_store)
    votes(memory_store, poll, red=3, green=1)
    html = client.get(f"/p/{poll.code}").content.decode()
    assert 'data-room-counter="room.red" data-counter="room.red" data-value="3"' in html
    assert "data-share>75%<" in html
    assert re.search(r"data-total>4<", html)
    assert NUMBERS.search(html)  # what the hidden page is checked for does show here


@pytest.mark.django_db
def test_present_mode_sends_others_to_the_login_page(client, memory_store):
    poll = make_poll(memory_store)
    response = client.get(f"/p/{poll.code}/present")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/?next=")


@pytest.mark.django_db
def test_present_mode_shows_staff_the_code_address_qr_and_hidden_totals(
    client, memory_store, django_user_model
):
    poll = make_poll(memory_store, results="revealed")
    votes(memory_store, poll, red=17, green=11)
    html = staff_client(client, django_user_model).get(f"/p/{poll.code}/present").content.decode()
    assert f"testserver/p/{poll.code}" in html
    assert f'class="code join-code">{poll.code}<' in html
    qr = r'<svg role="img" focusable="false" [^>]*class="qr"><title>QR code of testserver/p/'
    assert re.search(qr + poll.code + "</title>", html)
    assert 'data-room-counter="room.red" data-counter="room.red" data-value="17"' in html
    assert "Results hidden" in html


@pytest.mark.django_db
def test_staff_find_each_polls_present_mode_in_the_box_page(client, memory_store, django_user_model):
    poll = make_poll(memory_store)
    assert "Present a poll" not in client.get("/p").content.decode()
    html = staff_client(client, django_user_model).get("/p").content.decode()
    assert f'href="/p/{poll.code}/present">Which colour?</a>' in html


@pytest.mark.django_db
def test_the_audience_page_sets_the_voter_cookie_and_the_box_does_not(client, memory_store):
    poll = make_poll(memory_store)
    assert "counters_voter" not in client.get("/p").cookies
    assert "counters_voter" in client.get(f"/p/{poll.code}").cookies


@pytest.mark.django_db
def test_a_multiple_choice_voter_finds_every_pick_marked_again(client, memory_store):
    poll = make_poll(memory_store, kind="multi", max_picks=2)
    client.get(f"/p/{poll.code}")
    for option in ("red", "blue"):
        body = json.dumps({"option": option, "picked": True})
        answer = client.post(f"/api/polls/{poll.id}/vote", body, content_type="application/json")
        assert answer.status_code == 200
    html = client.get(f"/p/{poll.code}").content.decode()
    assert 'data-picks="red blue"' in html
    assert html.count('aria-pressed="true"') == 2


@pytest.mark.django_db
def test_one_vote_and_one_voter_are_said_in_the_singular(client, memory_store, django_user_model):
    poll = make_poll(memory_store, results="always")
    votes(memory_store, poll, red=1)
    audience = client.get(f"/p/{poll.code}").content.decode()
    assert re.search(r"data-total>1</span> <span data-total-unit[^>]*>vote</span> in all", audience)
    present = staff_client(client, django_user_model).get(f"/p/{poll.code}/present").content.decode()
    assert re.search(r"data-total>1</strong> <span data-total-unit[^>]*>vote</span>", present)
    assert re.search(r"data-voters>1</strong> <span data-voters-unit[^>]*>voter</span>", present)
    votes(memory_store, poll, green=2)
    present = client.get(f"/p/{poll.code}/present").content.decode()
    assert re.search(r"data-total>3</strong> <span data-total-unit[^>]*>votes</span>", present)


@pytest.mark.django_db
def test_a_poll_past_its_closing_time_is_closed_on_every_room_page(client, memory_store, django_user_model):
    poll = make_poll(memory_store, closes_at="2000-01-01T00:00:00Z")
    make_poll(memory_store, "later", closes_at="2999-01-01T00:00:00Z")
    audience = client.get(f"/p/{poll.code}").content.decode()
    assert 'id="room-hint" hidden' in audience  # no "tap another to change your vote"
    assert re.search(r"data-closed-note>This poll is closed", audience)
    staff = staff_client(client, django_user_model)
    listed = staff.get("/p").content.decode()
    assert re.search(rf"{poll.code}</span> <span class=\"room-note\">\(closed\)", listed)
    assert listed.count("(closed)") == 1
    present = staff.get(f"/p/{poll.code}/present").content.decode()
    assert '<span class="badge" data-state-open>Closed</span>' in present


@pytest.mark.django_db
def test_the_join_address_may_wrap_only_after_its_host(client, memory_store, django_user_model):
    poll = make_poll(memory_store)
    html = staff_client(client, django_user_model).get(f"/p/{poll.code}/present").content.decode()
    parts = f'<span class="join-part">testserver/</span><wbr><span class="join-part">p/{poll.code}</span>'
    assert f'<strong class="join-address">{parts}</strong>' in html
