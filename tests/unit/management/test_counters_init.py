"""`manage.py counters_init`: looking the store up creates nothing; the command creates, seeds, and moves
the starts of counters defined before they lived in the stored total."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from counters.demo import DEMO_PAGES, DEMO_POLLS
from counters.domain.values import CounterDefinition
from counters.store import get_store
from tests.support.old_items import define_as_before
from tests.support.outside_writers import outside_client, sdk_add


def table_exists(store) -> bool:
    """Whether the store's table is there (a DescribeTable, outside the store's contract)."""
    try:
        store.retrying.describe_table(TableName=store.table)
    except store.retrying.exceptions.ResourceNotFoundException:
        return False
    return True


@pytest.fixture
def fresh_store(store_settings):
    """The app's store on a table name nothing has created yet."""
    return get_store()


def test_looking_up_the_store_creates_no_table(fresh_store):
    assert not table_exists(fresh_store)


def test_no_demo_creates_the_table_and_seeds_nothing(fresh_store, capsys):
    call_command("counters_init", "--no-demo")
    assert table_exists(fresh_store)
    assert fresh_store.counter_names() == []
    assert fresh_store.list_polls() == []
    out = capsys.readouterr().out
    assert "(no demo content)" in out and "python manage.py counters_register <name>" in out


def test_init_seeds_the_demo_pages_and_polls_once(fresh_store):
    call_command("counters_init")
    call_command("counters_init")
    names = set(fresh_store.counter_names())
    assert {page.name for page in DEMO_PAGES} <= names
    assert [poll.id for poll in fresh_store.list_polls()] == sorted(poll.id for poll in DEMO_POLLS)


def test_init_moves_the_starts_of_a_table_from_before_into_their_totals_once(store, dynamodb_local, capsys):
    define_as_before(store, CounterDefinition(name="pricing", kind="views", start=1000))
    define_as_before(store, CounterDefinition(name="launch", kind="views", start=50))
    other = outside_client(dynamodb_local)
    for _ in range(5):
        sdk_add(other, store.table, "pricing", 1)

    call_command("counters_init", "--no-demo")
    assert "Moved the start of 2 counter(s) into the stored total." in capsys.readouterr().out
    call_command("counters_init", "--no-demo")
    assert "Moved the start" not in capsys.readouterr().out
    assert (store.get("pricing").value, store.get("launch").value) == (1005, 50)
    assert sdk_add(other, store.table, "launch", 1) == 51
