"""Poll control asks the admin's own permission: each action, each kind of user, through the API and the
admin alike; present mode offers its controls only to whoever may use them."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from counters.domain.values import PollDefinition, PollOption
from tests.support.admin_users import make_user

POLL = "talk"
# Each action applies from the state the one before it left, so every allowed call changes something.
ACTIONS = ("reveal", "hide", "close", "reopen")
# The admin's form for the same action: its address under the poll, and its body.
ADMIN_FORMS = {
    "reveal": ("control/", {"action": "reveal"}),
    "hide": ("control/", {"action": "hide"}),
    "close": ("closed/", {"closed": "1"}),
    "reopen": ("closed/", {"closed": "0"}),
}


def superuser():
    return get_user_model().objects.create_superuser("root", password="pw-123456")


USERS = {
    "superuser": superuser,
    "staff with change": lambda: make_user("ann", "view_poll", "change_poll"),
    "staff with view only": lambda: make_user("vic", "view_poll"),
    "signed in, not staff": lambda: make_user("bob", "view_poll", "change_poll", staff=False),
    "anonymous": lambda: None,
}
ALLOWED = {"superuser", "staff with change"}
# The admin refuses staff with a 403 and sends everyone else to its login page (a 302, as when it allows).
ADMIN_STATUS = {"staff with view only": 403}
REFUSED = "Only staff who may change polls control a poll."


def signed_in(who: str) -> Client:
    """A browser of this kind of user, with its CSRF token (so only the permission can refuse)."""
    client = Client(enforce_csrf_checks=True)
    user = USERS[who]()
    if user is not None:
        client.force_login(user)
    client.get("/")
    client.defaults["HTTP_X_CSRFTOKEN"] = client.cookies["csrftoken"].value
    return client


@pytest.fixture
def talk(memory_store):
    """A poll whose results show when the presenter reveals them."""
    options = (PollOption(id="yes", label="Yes"), PollOption(id="no", label="No"))
    memory_store.create_poll(PollDefinition(id=POLL, question="Good?", options=options, results="revealed"))
    return memory_store


def state(store) -> tuple:
    poll = store.get_poll(POLL)
    return poll.revealed, poll.closed, poll.version


def through_api(client: Client, action: str, *, who: str) -> None:
    """Send the action to the API: 200, or a 403 in the API's JSON shape."""
    response = client.post(
        f"/api/polls/{POLL}/control", json.dumps({"action": action}), content_type="application/json"
    )
    if who in ALLOWED:
        assert response.status_code == 200, (action, response.content)
        return
    assert response.status_code == 403, (action, response.content)
    assert response.json() == {"error": "not_allowed", "detail": REFUSED}


def through_admin(client: Client, action: str, *, who: str) -> None:
    """Send the action through the admin's form for it: back to the poll's page, or refused."""
    path, body = ADMIN_FORMS[action]
    response = client.post(f"/admin/counters/poll/{POLL}/{path}", body)
    assert response.status_code == ADMIN_STATUS.get(who, 302), action


@pytest.mark.django_db
@pytest.mark.parametrize("who", list(USERS))
@pytest.mark.parametrize("through", [through_api, through_admin])
def test_each_control_action_needs_the_permission_the_admin_asks(talk, who, through):
    client = signed_in(who)
    for action in ACTIONS:
        before = state(talk)
        through(client, action, who=who)
        assert (state(talk) != before) is (who in ALLOWED), action


def present(store, who: str) -> str:
    """Present mode's page as this user gets it."""
    response = signed_in(who).get(f"/p/{store.get_poll(POLL).code}/present")
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["superuser", "staff with change"])
def test_present_mode_offers_its_controls_to_whoever_may_use_them(talk, who):
    html = present(talk, who)
    assert 'data-action="visibility"' in html and 'data-action="open"' in html
    assert 'data-can-control="true"' in html and f'data-control-url="/api/polls/{POLL}/control"' in html
    assert "<kbd>R</kbd> reveal or hide results" in html


@pytest.mark.django_db
def test_present_mode_shows_view_only_staff_the_poll_without_controls(talk):
    html = present(talk, "staff with view only")
    assert "Good?" in html and 'data-action="next"' in html
    assert 'data-action="visibility"' not in html and 'data-action="open"' not in html
    assert 'data-can-control="false"' in html and "data-control-url" not in html
    assert "<kbd>R</kbd>" not in html and "<kbd>C</kbd>" not in html
