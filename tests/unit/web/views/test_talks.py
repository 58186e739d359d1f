"""The talk authoring page through Django's test client on the memory store: a presenter makes a talk of
polls without the admin; ids derived, order kept, copies made, bad input refused, only for staff who may."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from counters.domain.values import Talk
from tests.support.admin_users import make_user

pytestmark = pytest.mark.django_db

QUESTIONS = ("Which colour?", "Rate the talk", "Café or tea?", "Which colour?")


@pytest.fixture
def presenter(client, memory_store):
    """A client logged in as staff who may change polls."""
    client.force_login(make_user("presenter", "change_poll"))
    return client


def version(client, talk_id: str) -> str:
    """The talk's version the page shows (in its forms)."""
    page = client.get(f"/p/talks/{talk_id}").content.decode()
    return re.search(r'name="version" value="(\d+)"', page).group(1)


def add(client, talk_id: str, question: str, options: str = "Red\nGreen\n\nBlue", **fields) -> object:
    # What the page's form sends: every field, the selects at their first choice.
    body = {"action": "add", "version": version(client, talk_id), "question": question, "options": options}
    body |= {"kind": "single", "results": "always", "minutes": "", "closes_at": ""}
    return client.post(f"/p/talks/{talk_id}", body | fields)


def make_talk(client, title: str = "Friday keynote") -> str:
    response = client.post("/p/talks", {"title": title})
    assert response.status_code == 302
    return response["Location"].rsplit("/", 1)[-1]


def talk_of(store, talk_id: str) -> Talk:
    return store.get_talk(talk_id)


def test_a_presenter_makes_a_talk_of_four_polls_with_ids_derived_in_order(presenter, memory_store):
    talk_id = make_talk(presenter)
    assert talk_id == "friday-keynote"
    add(presenter, talk_id, QUESTIONS[0])
    add(presenter, talk_id, QUESTIONS[1], options="", kind="rating", results="revealed")
    add(presenter, talk_id, QUESTIONS[2], options="Café\nTea", minutes="2")
    add(presenter, talk_id, QUESTIONS[3], options="A\nB\nC", kind="multi")
    talk = talk_of(memory_store, talk_id)
    assert talk.poll_ids == ["which-colour", "rate-the-talk", "cafe-or-tea", "which-colour-2"]
    assert [entry.minutes for entry in talk.polls] == [None, None, 2, None]
    polls = [memory_store.get_poll(poll_id) for poll_id in talk.poll_ids]
    assert [poll.question for poll in polls] == list(QUESTIONS)
    assert [o.id for o in polls[0].options] == ["red", "green", "blue"]
    assert (polls[1].kind, polls[1].results, len(polls[1].options)) == ("rating", "revealed", 5)
    assert [o.id for o in polls[2].options] == ["cafe", "tea"] and polls[2].closes_at is None
    assert (polls[3].kind, polls[3].max_picks) == ("multi", 3)
    # A talk's polls are the room's: none is listed on the public dashboard.
    assert [poll.unlisted for poll in polls] == [True] * 4
    assert not any(question in presenter.get("/").content.decode() for question in QUESTIONS)
    page = presenter.get(f"/p/talks/{talk_id}").content.decode()
    assert [page.index(q) for q in ("Which colour?", "Rate the talk", "Café or tea?")] == sorted(
        page.index(q) for q in ("Which colour?", "Rate the talk", "Café or tea?")
    )
    for poll in polls:  # each poll's code, present mode and audience page on its card
        assert f"/p/{poll.code}/present" in page and f'href="/p/{poll.code}"' in page
    assert talk.code in page and f'href="/p/{talk.code}"' in page


def test_moving_and_dragging_reorder_the_talk(presenter, memory_store):
    talk_id = make_talk(presenter)
    for question in ("One?", "Two?", "Three?"):
        add(presenter, talk_id, question, options="Yes\nNo")
    body = {"action": "move", "poll": "three", "direction": "up", "version": version(presenter, talk_id)}
    response = presenter.post(f"/p/talks/{talk_id}", body)
    assert response.status_code == 302
    assert talk_of(memory_store, talk_id).poll_ids == ["one", "three", "two"]
    page = presenter.get(response["Location"]).content.decode()
    assert re.search(r'value="up"><button[^>]*aria-label="Move up: Three\?"[^>]*autofocus', page)
    order = {"action": "order", "order": "two one three", "version": version(presenter, talk_id)}
    presenter.post(f"/p/talks/{talk_id}", order)
    assert talk_of(memory_store, talk_id).poll_ids == ["two", "one", "three"]


def test_duplicating_a_poll_or_the_talk_makes_new_polls_without_votes(presenter, memory_store):
    talk_id = make_talk(presenter)
    add(presenter, talk_id, "One?", options="Yes\nNo", minutes="5")
    add(presenter, talk_id, "Two?", options="Yes\nNo")
    memory_store.cast_vote("one", voter="anon:a", option="yes")
    presenter.post(
        f"/p/talks/{talk_id}", {"action": "duplicate", "poll": "one", "version": version(presenter, talk_id)}
    )
    talk = talk_of(memory_store, talk_id)
    assert talk.poll_ids == ["one", "one-2", "two"] and talk.polls[1].minutes == 5
    assert memory_store.poll_voters("one-2") == {} and memory_store.get_poll("one-2").code != talk.code
    response = presenter.post(f"/p/talks/{talk_id}", {"action": "duplicate-talk"})
    copy = talk_of(memory_store, response["Location"].split("/")[-1].split("?")[0])
    assert copy.title == "Friday keynote (copy)" and copy.code != talk.code
    assert copy.poll_ids == ["one-3", "one-4", "two-2"] and copy.current == ""


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"question": ""}, "question"),
        ({"options": "Only one"}, "options"),
        ({"kind": "poll-of-polls"}, "kind"),
        ({"minutes": "soon"}, "Minutes"),
        ({"minutes": "2", "closes_at": "2099-01-01T10:00"}, "choose one"),
        ({"closes_at": "2001-01-01T10:00"}, "passed"),
        ({"closes_at": "next week"}, "picker"),
    ],
)
def test_bad_input_is_refused_readably_and_changes_nothing(presenter, memory_store, fields, said):
    talk_id = make_talk(presenter)
    add(presenter, talk_id, "Kept?", options="Yes\nNo")
    before = (talk_of(memory_store, talk_id), memory_store.list_polls())
    typed = {"question": "New?", "options": "Red\nBlue"} | fields
    response = add(presenter, talk_id, typed.pop("question"), **typed)
    assert response.status_code == 400
    page = response.content.decode()
    assert 'role="alert"' in page and said in page and "Nothing was changed." in page
    assert typed.get("options", "").split("\n")[0] in page  # what was typed is still in the form
    assert (talk_of(memory_store, talk_id), memory_store.list_polls()) == before


def test_a_stale_page_is_refused_and_changes_nothing(presenter, memory_store):
    talk_id = make_talk(presenter)
    add(presenter, talk_id, "One?", options="Yes\nNo")
    response = presenter.post(
        f"/p/talks/{talk_id}", {"action": "move", "poll": "one", "direction": "up", "version": "0"}
    )
    assert response.status_code == 409 and "changed meanwhile" in response.content.decode()
    assert talk_of(memory_store, talk_id).version == 1


def test_opening_the_next_poll_moves_the_talks_phones_and_starts_its_timer(presenter, memory_store):
    talk_id = make_talk(presenter)
    add(presenter, talk_id, "One?", options="Yes\nNo")
    add(presenter, talk_id, "Two?", options="Yes\nNo", minutes="3")
    talk = talk_of(memory_store, talk_id)
    assert presenter.get(f"/api/talks/{talk.code}").json()["poll"] is None
    assert "first poll" in presenter.get(f"/p/{talk.code}").content.decode()
    one, two = (memory_store.get_poll(poll_id) for poll_id in ("one", "two"))
    assert presenter.get(f"/p/{talk.code}/present")["Location"] == f"/p/{one.code}/present"
    response = presenter.post(f"/p/talks/{talk_id}", {"action": "open-next"})
    assert response["Location"] == f"/p/{one.code}/present"
    assert presenter.get(f"/api/talks/{talk.code.lower()}").json()["poll"]["id"] == "one"
    assert "One?" in presenter.get(f"/p/{talk.code}").content.decode()
    presenter.post(f"/p/talks/{talk_id}", {"action": "open-next"})
    assert presenter.get(f"/api/talks/{talk.code}").json()["poll"]["code"] == two.code
    assert presenter.get(f"/p/{talk.code}/present")["Location"] == f"/p/{two.code}/present"
    assert "One?" in presenter.get(f"/p/{one.code}").content.decode()  # a poll's own code still opens it
    assert memory_store.get_poll("two").closes_at is not None  # three minutes from its opening
    response = presenter.post(f"/p/talks/{talk_id}", {"action": "open-next"})
    assert "last poll" in presenter.get(response["Location"]).content.decode()


def test_present_mode_follows_the_talks_order_and_shows_its_code(presenter, memory_store):
    talk_id = make_talk(presenter)
    for question in ("One?", "Two?", "Three?"):
        add(presenter, talk_id, question, options="Yes\nNo")
    order = {"action": "order", "order": "three one two", "version": version(presenter, talk_id)}
    presenter.post(f"/p/talks/{talk_id}", order)
    talk = talk_of(memory_store, talk_id)
    codes = {poll_id: memory_store.get_poll(poll_id).code for poll_id in talk.poll_ids}
    page = presenter.get(f"/p/{codes['one']}/present").content.decode()
    assert f'data-previous="/p/{codes["three"]}/present"' in page
    assert f'data-next="/p/{codes["two"]}/present"' in page
    assert f">{talk.code}</strong>" in page and f"/api/talks/{talk_id}/open" in page
    opened = presenter.post(f"/api/talks/{talk_id}/open", {"poll": "two"}, content_type="application/json")
    assert opened.status_code == 200 and talk_of(memory_store, talk_id).current == "two"


def test_staff_see_talks_at_p_and_typing_a_talk_code_joins_it(presenter, memory_store):
    talk_id = make_talk(presenter)
    code = talk_of(memory_store, talk_id).code
    page = presenter.get("/p").content.decode()
    assert f'href="/p/talks/{talk_id}"' in page and 'href="/p/talks"' in page
    response = presenter.get("/p", {"code": f" {code.lower()} "})
    assert response["Location"] == f"/p/{code}"


def test_people_who_may_not_change_polls_are_refused(client, memory_store):
    talk_id = "friday"
    memory_store.create_talk(Talk(id=talk_id, title="F"))
    assert client.get("/p/talks").status_code == 302  # to the admin's login
    assert client.post("/p/talks", {"title": "Mine"}).status_code == 302
    client.force_login(make_user("viewer"))  # staff without counters.change_poll
    response = client.post("/p/talks", {"title": "Mine"})
    assert response.status_code == 403 and "may change polls" in response.content.decode()
    response = client.post(f"/p/talks/{talk_id}", {"action": "open-next"})
    assert response.status_code == 403
    response = client.post(f"/api/talks/{talk_id}/open", {"poll": "x"}, content_type="application/json")
    assert response.status_code == 403 and response.json()["error"] == "not_allowed"
    assert [talk.id for talk in memory_store.list_talks()] == [talk_id]


def test_every_change_needs_the_csrf_token(memory_store):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("presenter", "change_poll"))
    assert client.post("/p/talks", {"title": "No token"}).status_code == 403
    assert memory_store.list_talks() == []
    page = client.get("/p/talks")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode()).group(1)
    assert client.post("/p/talks", {"title": "With token", "csrfmiddlewaretoken": token}).status_code == 302
    talk = memory_store.list_talks()[0]
    response = client.post(f"/api/talks/{talk.id}/open", {"poll": "x"}, content_type="application/json")
    assert response.status_code == 403 and response.json()["error"] == "csrf_failed"


def test_staff_find_a_polls_room_pages_from_its_admin_page_and_its_card(presenter, memory_demo_store):
    poll = memory_demo_store.list_polls()[0]
    admin_page = presenter.get(f"/admin/counters/poll/{poll.id}/").content.decode()
    assert f'href="/p/{poll.code}/present"' in admin_page and f'href="/p/{poll.code}"' in admin_page
    dashboard = presenter.get("/").content.decode()
    assert f'Join code <span class="code">{poll.code}</span>' in dashboard
    presenter.logout()
    assert poll.code not in Client().get("/").content.decode()
