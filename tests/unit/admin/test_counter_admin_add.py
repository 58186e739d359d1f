"""The admin's "Add counter" form: staff with the permission register a page counter, behind CSRF."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.support.admin_users import make_user

LIST = "/admin/counters/counter/"
ADD = f"{LIST}add/"


@pytest.fixture
def adder(client):
    client.force_login(make_user("ann", "view_counter", "add_counter"))
    return client


@pytest.mark.django_db
def test_the_list_links_to_the_form_which_registers_a_page_counter(adder, memory_store):
    assert f'href="{ADD}"' in adder.get(LIST).content.decode()
    form = adder.get(ADD)
    assert form.status_code == 200
    assert 'name="csrfmiddlewaretoken"' in form.content.decode()
    data = {"name": "pricing", "title": "Pricing", "description": "What it costs.", "start": "1000"}
    done = adder.post(ADD, data, follow=True)
    assert done.redirect_chain == [(f"{LIST}pricing/", 302)]
    assert "Counter pricing was registered." in done.content.decode()
    state = memory_store.get("pricing")
    assert (state.kind, state.title, state.description, state.value) == (
        "views",
        "Pricing",
        "What it costs.",
        1000,
    )
    assert f'href="{ADD}"' in adder.get("/admin/").content.decode()


@pytest.mark.django_db
def test_a_taken_name_is_refused_and_the_counter_left_as_it_is(adder, memory_store):
    adder.post(ADD, {"name": "pricing", "title": "Pricing", "start": "0"})
    memory_store.increment("pricing", kind="views")
    again = adder.post(ADD, {"name": "pricing", "title": "Other", "start": "0"})
    assert again.status_code == 409
    assert "A counter named &#x27;pricing&#x27; exists already; pick another name." in again.content.decode()
    assert (memory_store.get("pricing").title, memory_store.get("pricing").value) == ("Pricing", 1)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "Pricing Page", "start": "0"}, "Use lowercase letters, digits"),
        ({"name": "add", "start": "0"}, "taken by this page"),
        ({"name": "pricing", "start": "-1"}, "greater than or equal to 0"),
    ],
)
def test_fields_that_do_not_fit_register_nothing(adder, memory_store, data, message):
    page = adder.post(ADD, data)
    assert page.status_code == 400
    assert message in page.content.decode() and "Nothing was registered." in page.content.decode()
    assert memory_store.counter_names() == []


@pytest.mark.django_db
def test_staff_without_the_permission_and_forged_posts_are_refused(client, memory_store):
    client.force_login(make_user("vic", "view_counter"))
    assert 'href="/admin/counters/counter/add/"' not in client.get(LIST).content.decode()
    assert client.get(ADD).status_code == 403
    assert client.post(ADD, {"name": "pricing", "start": "0"}).status_code == 403

    checked = Client(enforce_csrf_checks=True)
    checked.force_login(make_user("ann", "view_counter", "add_counter"))
    assert checked.post(ADD, {"name": "pricing", "start": "0"}).status_code == 403
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', checked.get(ADD).content.decode()).group(
        1
    )
    posted = checked.post(ADD, {"name": "pricing", "start": "0", "csrfmiddlewaretoken": token})
    assert posted.status_code == 302
    assert memory_store.counter_names() == ["pricing"]
