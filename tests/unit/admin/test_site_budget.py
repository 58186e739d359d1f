"""The admin's counter list says how many pages were created at their first view and refused at the cap."""

from __future__ import annotations

import contextlib

import pytest

from counters.domain.values import CounterDefinition
from counters.exceptions import PageLimitReached
from tests.support.admin_users import make_user

LIST = "/admin/counters/counter/"


@pytest.mark.django_db
def test_the_list_tells_pages_created_and_refused_at_the_cap(client, settings, memory_demo_store):
    settings.COUNTERS_SITE_MAX_PAGES = 2
    client.force_login(make_user("ann", "view_counter"))
    assert "first view" not in client.get(LIST).content.decode()
    for number in range(3):
        with contextlib.suppress(PageLimitReached):
            memory_demo_store.create_page(CounterDefinition(f"p-{number}", "views"), cap=2)
    page = client.get(LIST).content.decode()
    assert "Pages created at their first view: 2 of at most 2 (COUNTERS_SITE_MAX_PAGES)." in page
    assert "1 new pages were refused at the cap and not counted." in page
