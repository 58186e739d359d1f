"""Unique visitors and bot views through the view service: exact, cheap on repeats, across a day."""

from __future__ import annotations

import time

import pytest

from counters import selectors, services
from counters.background import history_writer
from counters.domain.buckets import MINUTE
from counters.domain.names import SITE_VISITORS
from counters.domain.visitors import Client, site_visitor_id, visit_day, visitor_id
from counters.exceptions import StoreUnavailable
from counters.store.dynamodb import schema

BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


def person(i: int) -> Client:
    return Client(address=f"198.51.100.{i}", user_agent=BROWSER)


def visitors_today(name: str) -> int:
    return selectors.counter_detail(name=name).visitors_today


def test_each_person_counts_once_a_day_and_every_view_counts(memory_demo_store, published):
    for _ in range(3):
        for i in range(4):
            services.view_record(slug="docs", client=person(i))
    services.view_record(slug="docs", client=Client(address="198.51.100.0", user_agent="Other/1.0"))
    services.view_record(slug="welcome", client=person(0))
    assert memory_demo_store.get("docs").value == 13
    assert (visitors_today("docs"), visitors_today("welcome")) == (5, 1)
    assert selectors.counter_detail(name="language.python").visitors_today is None, "votes have no visitors"


def test_a_repeat_this_process_saw_costs_no_store_write(memory_demo_store, published, monkeypatch):
    calls = []
    record = memory_demo_store.record_visitor
    monkeypatch.setattr(
        memory_demo_store, "record_visitor", lambda *a, **kw: calls.append(a) or record(*a, **kw)
    )
    for _ in range(5):
        services.view_record(slug="docs", client=person(1))
    assert [call[0] for call in calls] == ["docs", SITE_VISITORS], "one for the page, one for the site"
    assert visitors_today("docs") == 1


def test_a_person_counts_once_for_the_whole_site_however_many_pages(memory_demo_store, published):
    for i in range(3):
        for page in ("docs", "welcome", "pricing"):
            services.view_record(slug=page, client=person(i))
    services.view_record(slug="docs", client=Client(address="198.51.100.0", user_agent="Other/1.0"))
    today = visit_day(time.time())
    assert memory_demo_store.visitors_on([SITE_VISITORS], day=today) == {SITE_VISITORS: 4}
    assert memory_demo_store.visitors_on(["docs", "welcome"], day=today) == {"docs": 4, "welcome": 3}
    assert selectors.overview(counters=selectors.counter_list(), polls=[]).site_visitors == 4


def test_the_site_hash_names_no_page():
    salt = b"s" * 32
    site = site_visitor_id(salt, person(1))
    assert site == site_visitor_id(salt, person(1)) != site_visitor_id(salt, person(2))
    assert site not in {visitor_id(salt, person(1), page) for page in ("docs", "", SITE_VISITORS)}


def test_a_bots_views_go_to_bot_views_only(memory_demo_store, published):
    services.view_record(slug="docs", client=person(1))
    for _ in range(3):
        state = services.view_record(slug="docs", client=Client(address="66.249.66.1", user_agent=GOOGLEBOT))
    assert (state.value, state.bot_views) == (1, 3)
    history_writer.flush()
    minute = MINUTE.key(MINUTE.start_of(time.time()))
    assert memory_demo_store.read_buckets("docs", first=minute, last=minute) == {minute: 1}
    assert published == [("docs", 1, 1)], "a bot's view changes nothing people see"
    detail = selectors.counter_detail(name="docs")
    assert (detail.value, detail.visitors_today, detail.bot_views) == (1, 1, 3)


def test_the_bot_split_can_be_turned_off(memory_demo_store, published, settings):
    settings.COUNTERS_COUNT_BOTS_APART = False
    services.view_record(slug="docs", client=Client(address="66.249.66.1", user_agent=GOOGLEBOT))
    detail = selectors.counter_detail(name="docs")
    assert (detail.value, detail.visitors_today, detail.bot_views) == (1, 1, 0)


def test_a_view_without_a_client_counts_no_visitor(memory_demo_store, published):
    services.view_record(slug="docs")
    assert (memory_demo_store.get("docs").value, visitors_today("docs")) == (1, 0)


def test_a_visitor_the_store_could_not_take_is_counted_by_their_next_view(
    memory_demo_store, published, monkeypatch, caplog
):
    record = memory_demo_store.record_visitor
    failures = iter([StoreUnavailable("The counter store cannot be reached right now.")])

    def flaky(*args, **kwargs):
        failure = next(failures, None)
        if failure:
            raise failure
        return record(*args, **kwargs)

    monkeypatch.setattr(memory_demo_store, "record_visitor", flaky)
    assert services.view_record(slug="docs", client=person(7)).value == 1, "the view itself counted"
    assert visitors_today("docs") == 0
    services.view_record(slug="docs", client=person(7))
    assert visitors_today("docs") == 1
    assert "A visitor of docs may not be counted yet" in caplog.text
    assert "198.51.100.7" not in caplog.text and BROWSER not in caplog.text


def salts_in(store) -> list[str]:
    """Days whose salt the DynamoDB table holds."""
    return [item[schema.SK]["S"] for item in store.gateway.query_all(schema.SALT_PK)]


def test_a_new_utc_day_starts_a_new_count_under_a_new_salt(demo_store, published):
    # Tomorrow and the day after (items of days gone by would be TTL-deleted by DynamoDB Local).
    first = visit_day(time.time() + 86400)
    second = visit_day(first.start + 86400)
    late, early = first.start + 86400 - 1, second.start  # one second apart, either side of midnight
    for i in range(3):
        services.view_record(slug="docs", client=person(i), at=late)
    old_salt = demo_store.daily_salt(first, candidate=b"\0" * 32)
    assert salts_in(demo_store) == [first.key]
    for i in (0, 1):
        services.view_record(slug="docs", client=person(i), at=early)
        services.view_record(slug="docs", client=person(i), at=early)
    assert demo_store.visitors_on(["docs"], day=first) == {"docs": 3}
    assert demo_store.visitors_on(["docs"], day=second) == {"docs": 2}, "yesterday's visitors count again"
    assert demo_store.get("docs").value == 7
    assert salts_in(demo_store) == [second.key], "the old day's salt is deleted at the rotation"
    new_salt = demo_store.daily_salt(second, candidate=b"\0" * 32)
    assert new_salt != old_salt
    assert visitor_id(new_salt, person(0), "docs") != visitor_id(old_salt, person(0), "docs")


@pytest.mark.parametrize("shards", [0, 4])
def test_visitors_of_plain_and_hot_pages_in_dynamodb_local(demo_store, published, shards):
    if shards:
        demo_store.make_hot("docs", shards=shards)
    for _ in range(2):
        for i in range(6):
            services.view_record(slug="docs", client=person(i))
    detail = selectors.counter_detail(name="docs")
    assert (detail.value, detail.visitors_today) == (12, 6)
    assert demo_store.visitors_on([SITE_VISITORS], day=visit_day(time.time())) == {SITE_VISITORS: 6}
    history = selectors.counter_history(name="docs", window=None, series="visitors").as_dict()
    assert (history["resolution"], len(history["points"]), history["points"][-1]["count"]) == ("day", 90, 6)
