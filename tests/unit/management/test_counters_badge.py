"""`manage.py counters_badge`: say, turn on and turn off counting a view on each badge fetch."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command


def badge(*args: str) -> str:
    out = StringIO()
    call_command("counters_badge", *args, stdout=out)
    return out.getvalue()


def test_the_choice_is_shown_set_and_unset(memory_demo_store):
    assert badge("docs") == "Fetching /badge/docs.svg counts nothing.\n"
    assert "counts one view of docs" in badge("docs", "--count")
    assert memory_demo_store.get("docs").badge_counts is True
    assert "counts one view of docs" in badge("docs")
    assert badge("docs", "--no-count") == "Fetching /badge/docs.svg counts nothing.\n"
    assert memory_demo_store.get("docs").badge_counts is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ghost", "--count"], "There is no counter named 'ghost'."),
        (["Not A Name"], "counter name"),
        (["language.go", "--count"], "only a page's badge can count views"),
    ],
)
def test_refusals_change_nothing(memory_demo_store, args, message):
    with pytest.raises(CommandError, match=message):
        badge(*args)
    assert not any(state.badge_counts for state in memory_demo_store.list_counters())


def test_both_choices_at_once_are_refused(memory_demo_store):
    with pytest.raises(CommandError):
        badge("docs", "--count", "--no-count")
