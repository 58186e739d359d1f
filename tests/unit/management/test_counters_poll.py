"""`manage.py counters_poll` and the poll services behind it, on the in-process store."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from counters import services
from counters.exceptions import Conflict, InvalidInput, PollClosed


def run(*args: str) -> str:
    out = StringIO()
    call_command("counters_poll", *args, stdout=out)
    return out.getvalue()


def test_create_add_close_reopen_list(memory_store):
    out = run("create", "lunch", "--question", "Lunch?", "--option", "soup=Soup", "--option", "salad")
    assert "lunch (open): Lunch? [soup, salad]" in out
    assert memory_store.get_poll("lunch").options[1].label == "salad"
    assert "[soup, salad, pie]" in run("add-option", "lunch", "pie=Apple pie")
    assert memory_store.get("lunch.pie").kind == "votes"
    assert "lunch (closed)" in run("close", "lunch")
    with pytest.raises(PollClosed):
        services.vote_cast(poll_id="lunch", voter="anon:a", option="soup")
    assert "lunch (open)" in run("reopen", "lunch")
    services.vote_cast(poll_id="lunch", voter="anon:a", option="pie")
    listing = run("list")
    assert "lunch (open): Lunch?" in listing
    assert [line.split()[:2] for line in listing.splitlines()[1:]] == [
        ["soup", "0"],
        ["salad", "0"],
        ["pie", "1"],
    ]


def test_command_errors_are_command_errors(memory_store):
    run("create", "lunch", "--question", "Lunch?", "--option", "a", "--option", "b")
    with pytest.raises(CommandError, match="exists already"):
        run("create", "lunch", "--question", "Again?", "--option", "a", "--option", "b")
    with pytest.raises(CommandError, match="already has an option"):
        run("add-option", "lunch", "a=A")
    with pytest.raises(CommandError, match="no poll"):
        run("close", "ghost")
    with pytest.raises(CommandError):
        run("create", "x", "--question", "One option?", "--option", "a")


def test_poll_create_validates(memory_store):
    with pytest.raises(InvalidInput):
        services.poll_create(poll_id="p", question="Q", options=[("a", "A"), ("a", "B")])
    with pytest.raises(InvalidInput):
        services.poll_create(poll_id="p", question=" ", options=[("a", "A"), ("b", "B")])
    with pytest.raises(InvalidInput):
        services.poll_create(poll_id="P!", question="Q", options=[("a", "A"), ("b", "B")])
    services.poll_create(poll_id="p", question="Q", options=[("a", "A"), ("b", "B")])
    with pytest.raises(Conflict):
        services.poll_create(poll_id="p", question="Q", options=[("a", "A"), ("b", "B")])
