"""Polls in the Django admin: create, add options, close and reopen, with clear refusals."""

from __future__ import annotations

import pytest

from counters.domain.values import PollDefinition, PollOption
from counters.exceptions import UnknownCounter
from tests.support.admin_users import make_user

LIST = "/admin/counters/poll/"


@pytest.fixture
def manager(client):
    client.force_login(make_user("ann", "view_poll", "add_poll", "change_poll"))
    return client


@pytest.mark.django_db
def test_create_a_poll_with_its_options(manager, memory_store):
    assert 'href="/admin/counters/poll/add/"' in manager.get(LIST).content.decode()
    data = {"poll_id": "lunch", "question": "Lunch?", "options": "Soup\nsalad-bar | Salad bar\n\n"}
    response = manager.post(f"{LIST}add/", data, follow=True)
    assert response.redirect_chain == [(f"{LIST}lunch/", 302)]
    assert "Poll lunch was created with 2 options." in response.content.decode()
    poll = memory_store.get_poll("lunch")
    assert [(o.id, o.label) for o in poll.options] == [("soup", "Soup"), ("salad-bar", "Salad bar")]
    assert memory_store.get("lunch.salad-bar").kind == "votes"
    assert '<tr data-poll="lunch">' in manager.get(LIST).content.decode()

    again = manager.post(f"{LIST}add/", {**data, "question": "Again?"})
    assert (
        again.status_code == 400
        and "A poll named &#x27;lunch&#x27; exists already." in again.content.decode()
    )
    assert memory_store.get_poll("lunch").question == "Lunch?"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data",
    [
        {"poll_id": "Bad Id", "question": "Q?", "options": "A"},
        {"poll_id": "add", "question": "Q?", "options": "A"},
        {"poll_id": "ok", "question": "", "options": "A"},
        {"poll_id": "ok", "question": "Q?", "options": "A\nA"},
        {"poll_id": "ok", "question": "Q?", "options": "\n"},
        {"poll_id": "ok", "question": "Q?", "options": "\n".join(f"o{i}" for i in range(21))},
    ],
)
def test_invalid_polls_are_refused_and_nothing_is_written(manager, memory_store, data):
    assert manager.post(f"{LIST}add/", data).status_code == 400
    assert memory_store.list_polls() == [] and memory_store.counter_names() == []


@pytest.mark.django_db
def test_add_an_option_only_with_a_new_id(manager, memory_demo_store):
    response = manager.post(f"{LIST}deploy/options/", {"label": "Kubernetes"}, follow=True)
    assert "Option kubernetes was added to deploy." in response.content.decode()
    assert memory_demo_store.get_poll("deploy").options[-1].id == "kubernetes"
    assert memory_demo_store.get("deploy.kubernetes").value == 0
    duplicate = manager.post(f"{LIST}deploy/options/", {"label": "AWS again", "option_id": "aws"})
    assert duplicate.status_code == 409
    assert "Poll &#x27;deploy&#x27; already has an option &#x27;aws&#x27;." in duplicate.content.decode()
    assert [o.id for o in memory_demo_store.get_poll("deploy").options].count("aws") == 1
    assert manager.post(f"{LIST}deploy/options/", {"label": ""}).status_code == 400


@pytest.mark.django_db
def test_close_and_reopen_a_poll_say_when_it_is_so_already(manager, memory_demo_store):
    closed = manager.post(f"{LIST}language/closed/", {"closed": "1"}, follow=True)
    assert "Poll language is now closed." in closed.content.decode()
    assert 'id="poll-state">closed<' in closed.content.decode()
    assert memory_demo_store.get_poll("language").closed is True
    stale = manager.post(f"{LIST}language/closed/", {"closed": "1"}, follow=True)  # a second tab's form
    assert "Poll &#x27;language&#x27; is already closed." in stale.content.decode()
    reopened = manager.post(f"{LIST}language/closed/", {"closed": "0"}, follow=True)
    assert "Poll language is now open." in reopened.content.decode()
    assert memory_demo_store.get_poll("language").closed is False
    assert manager.get(f"{LIST}ghost/").status_code == 404
    assert manager.post(f"{LIST}ghost/closed/", {"closed": "1"}).status_code == 404
    with pytest.raises(UnknownCounter):
        memory_demo_store.get_poll("ghost")


@pytest.mark.django_db
def test_staff_without_poll_permissions_is_refused(client, memory_demo_store):
    client.force_login(make_user("vic", "view_poll"))
    page = client.get(f"{LIST}deploy/").content.decode()
    assert 'id="option-form"' not in page and 'id="closed-form"' not in page
    assert client.get(f"{LIST}add/").status_code == 403
    assert client.post(f"{LIST}add/", {"poll_id": "x", "question": "Q?", "options": "A"}).status_code == 403
    assert client.post(f"{LIST}deploy/options/", {"label": "K8s"}).status_code == 403
    assert client.post(f"{LIST}deploy/closed/", {"closed": "1"}).status_code == 403
    assert (
        len(memory_demo_store.get_poll("deploy").options) == 3
        and memory_demo_store.get_poll("deploy").closed is False
    )
    client.logout()
    assert client.post(f"{LIST}deploy/closed/", {"closed": "1"}).status_code == 302
    assert memory_demo_store.get_poll("deploy").closed is False


@pytest.mark.django_db
def test_create_a_rating_with_hidden_results_then_reveal_them(manager, memory_store):
    data = {
        "poll_id": "talk",
        "question": "Rate the talk",
        "kind": "rating",
        "results": "revealed",
        "closes_at": "2099-01-01 18:00",
        "max_voters": "300",
        "audience": "users",
    }
    response = manager.post(f"{LIST}add/", data, follow=True)
    assert response.redirect_chain == [(f"{LIST}talk/", 302)]
    poll = memory_store.get_poll("talk")
    assert [o.id for o in poll.options] == ["1", "2", "3", "4", "5"]
    assert (poll.kind, poll.results, poll.closes_at, poll.max_voters, poll.audience) == (
        "rating",
        "revealed",
        "2099-01-01T18:00:00+00:00",
        300,
        "users",
    )
    memory_store.cast_vote("talk", voter="user:1", option="4")
    page = manager.get(f"{LIST}talk/").content.decode()
    assert f"Join code <strong>{poll.code}</strong>" in page
    assert 'href="/api/polls/talk/results.csv"' in page and "counters/live.js" in page
    assert 'data-value="1" data-counter="talk.4"' in page  # staff see the hidden totals, kept live
    revealed = manager.post(f"{LIST}talk/control/", {"action": "reveal"}, follow=True).content.decode()
    assert "results are now revealed" in revealed and "Hide the results" in revealed
    assert memory_store.get_poll("talk").revealed is True


@pytest.mark.django_db
def test_reset_and_delete_a_poll_at_the_version_shown_with_a_reason(manager, memory_store):
    import re

    manager.post(f"{LIST}add/", {"poll_id": "lunch", "question": "Lunch?", "options": "Soup\nSalad"})
    memory_store.cast_vote("lunch", voter="v1", option="soup")
    page = manager.get(f"{LIST}lunch/").content.decode()
    shown = re.search(r'name="shown" value="([^"]+)"', page).group(1)
    memory_store.set_poll_closed("lunch", closed=True)  # the poll moves on after the page was shown
    stale = manager.post(f"{LIST}lunch/reset/", {"shown": shown, "reason": "rehearsal"}, follow=True)
    assert "Nothing was changed" in stale.content.decode() and memory_store.get("lunch.soup").value == 1
    page = manager.get(f"{LIST}lunch/").content.decode()
    shown = re.search(r'name="shown" value="([^"]+)"', page).group(1)
    done = manager.post(f"{LIST}lunch/reset/", {"shown": shown, "reason": "rehearsal"}, follow=True)
    assert "votes were reset" in done.content.decode() and memory_store.get("lunch.soup").value == 0
    assert [(a.action, a.actor, a.reason, a.totals) for a in memory_store.poll_audit("lunch")] == [
        ("reset", "ann", "rehearsal", {"soup": 1, "salad": 0})
    ]
    page = manager.get(f"{LIST}lunch/").content.decode()
    shown = re.search(r'name="shown" value="([^"]+)"', page).group(1)
    gone = manager.post(f"{LIST}lunch/delete/", {"shown": shown, "reason": "done"}, follow=True)
    assert gone.redirect_chain[-1] == (LIST, 302) and "Poll lunch was deleted." in gone.content.decode()
    assert memory_store.list_polls() == [] and memory_store.poll_audit("lunch")[0].action == "delete"


@pytest.mark.django_db
def test_edit_the_question_and_labels_until_the_first_vote(manager, memory_store):
    import re

    manager.post(f"{LIST}add/", {"poll_id": "lunch", "question": "Lunch?", "options": "Soup\nSalad"})
    page = manager.get(f"{LIST}lunch/").content.decode()
    shown = re.search(r'name="shown" value="([^"]+)"', page).group(1)
    edit = {"shown": shown, "question": "Lunch today?", "label-soup": "Tomato soup", "label-salad": "Salad"}
    assert "was edited" in manager.post(f"{LIST}lunch/edit/", edit, follow=True).content.decode()
    poll = memory_store.get_poll("lunch")
    assert (poll.question, poll.options[0].label, poll.version) == ("Lunch today?", "Tomato soup", 1)
    memory_store.cast_vote("lunch", voter="v1", option="soup")
    page = manager.get(f"{LIST}lunch/").content.decode()
    assert 'id="edit-form"' not in page
    shown = re.search(r'name="shown" value="([^"]+)"', page).group(1)
    late = manager.post(f"{LIST}lunch/edit/", {**edit, "shown": shown, "question": "Late?"}, follow=True)
    assert "locked" in late.content.decode() and memory_store.get_poll("lunch").question == "Lunch today?"


@pytest.mark.django_db
def test_a_poll_past_its_closing_time_is_closed_in_the_admin_with_no_close_or_reopen(manager, memory_store):
    options = (PollOption(id="yes", label="Yes"), PollOption(id="no", label="No"))
    memory_store.create_poll(
        PollDefinition(id="past", question="Past?", options=options, closes_at="2000-01-01T00:00:00Z")
    )
    assert "<td>closed</td>" in manager.get(LIST).content.decode()
    page = manager.get(f"{LIST}past/").content.decode()
    assert 'id="poll-state">closed by its closing time<' in page
    assert "closed at 2000-01-01T00:00:00Z" in page
    assert 'id="closed-form"' not in page and 'id="closed-note"' in page
    assert "0 voters" in page and "results shown to each voter after voting" not in page


@pytest.mark.django_db
def test_the_poll_page_says_each_results_rule_once_and_counts_in_the_right_number(manager, memory_store):
    options = (PollOption(id="yes", label="Yes"), PollOption(id="no", label="No"))
    memory_store.create_poll(PollDefinition(id="shown", question="Q?", options=options, results="revealed"))
    memory_store.cast_vote("shown", voter="v1", option="yes")
    page = manager.get(f"{LIST}shown/").content.decode()
    assert "results shown when revealed (hidden now)" in page and "(revealed)" not in page
    assert "1 voter ·" in page


@pytest.mark.django_db
def test_a_poll_made_here_stays_off_the_dashboard_unless_chosen_and_can_go_on_and_off(
    manager, client, memory_store
):
    manager.post(f"{LIST}add/", {"poll_id": "talk", "question": "Talk?", "options": "Yes\nNo"})
    manager.post(
        f"{LIST}add/", {"poll_id": "open", "question": "Everyone?", "options": "Yes\nNo", "dashboard": "on"}
    )
    assert (memory_store.get_poll("talk").unlisted, memory_store.get_poll("open").unlisted) == (True, False)
    page = manager.get(f"{LIST}talk/").content.decode()
    assert "off the public dashboard" in page and "Show it on the public dashboard" in page
    shown = manager.post(f"{LIST}talk/dashboard/", {"unlisted": "0"}, follow=True).content.decode()
    assert "Poll talk is now on the public dashboard." in shown
    assert memory_store.get_poll("talk").unlisted is False
    stale = manager.post(f"{LIST}talk/dashboard/", {"unlisted": "0"}, follow=True).content.decode()
    assert "Poll &#x27;talk&#x27; is already on the dashboard." in stale
    assert manager.post(f"{LIST}talk/dashboard/", {"unlisted": "maybe"}, follow=True).status_code == 200
    assert memory_store.get_poll("talk").unlisted is False
