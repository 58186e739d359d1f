"""`manage.py counters_register`: registers pages once, says so, and refuses what does not fit clearly."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"


def run(*args: str) -> str:
    out = StringIO()
    call_command("counters_register", *args, stdout=out)
    return out.getvalue()


def test_registers_pages_that_then_count_views(memory_store):
    out = run("welcome", "about-us")
    assert "Registered views counter 'welcome' (Welcome)." in out
    assert "Registered views counter 'about-us' (About us)." in out
    assert memory_store.counter_names() == ["about-us", "welcome"]

    page = Client(HTTP_USER_AGENT=BROWSER_UA).get("/pages/welcome/")
    assert page.status_code == 200
    assert memory_store.get("welcome").value == 1


def test_title_description_and_start(memory_store):
    run("pricing", "--title", "Our prices", "--description", "What it costs.", "--start", "1000")
    state = memory_store.get("pricing")
    assert (state.kind, state.title, state.description, state.value) == (
        "views",
        "Our prices",
        "What it costs.",
        1000,
    )


def test_running_it_again_changes_nothing_and_says_so(memory_store):
    run("welcome", "--title", "Welcome")
    Client(HTTP_USER_AGENT=BROWSER_UA).get("/pages/welcome/")
    again = run("welcome", "--title", "Another title")
    assert "'welcome' was registered already (views, Welcome, value 1); left as it is." in again
    state = memory_store.get("welcome")
    assert (state.title, state.value) == ("Welcome", 1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["Welcome Page"], "A page name is 1 to 64 lowercase letters"),
        (["a", "b", "--title", "Both"], "--title names one counter"),
        (["welcome", "--start", "-5"], "starts at 0 or more"),
        (["welcome", "--title", "x" * 201], "A title is 1 to 200 characters"),
    ],
)
def test_refusals_say_what_to_change_and_register_nothing(memory_store, args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)
    assert memory_store.counter_names() == []


def test_a_name_registered_as_the_other_kind_is_refused(memory_store):
    run("lunch", "--kind", "votes")
    with pytest.raises(CommandError, match="'lunch' is registered already as a votes counter; pick another"):
        run("lunch")
    assert memory_store.get("lunch").kind == "votes"
