"""`manage.py counters_init`: looking the store up creates nothing; the command creates and seeds."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from counters.demo import DEMO_PAGES, DEMO_POLLS
from counters.store import get_store


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
