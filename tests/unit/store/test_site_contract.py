"""The store contract for whole-site counting: pages created under a cap, tallies per day; both backends."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from counters.domain.values import CounterDefinition
from counters.exceptions import PageLimitReached
from tests.unit.store import test_contract

# The contract's own parametrisation: every test runs on DynamoDB Local and on the memory store.
pytest_generate_tests = test_contract.pytest_generate_tests
any_store = test_contract.any_store

DAY = "D#2026-11-25"
NEXT_DAY = "D#2026-11-26"


def page(name: str) -> CounterDefinition:
    return CounterDefinition(name=name, kind="views", title=f"Title of {name}", description=f"/{name}")


def test_a_created_page_counts_and_keeps_its_title(any_store):
    assert any_store.create_page(page("docs-1"), cap=5) is True
    assert any_store.increment("docs-1", kind="views").value == 1
    assert any_store.get("docs-1").title == "Title of docs-1"
    assert any_store.page_budget().created == 1


def test_creating_an_existing_page_leaves_it_as_it_is(any_store):
    any_store.create_page(page("docs-1"), cap=5)
    any_store.increment("docs-1", kind="views")
    assert any_store.create_page(page("docs-1"), cap=5) is False
    assert any_store.get("docs-1").value == 1
    assert any_store.page_budget().created == 1


def test_the_cap_refuses_new_pages_counts_the_refusal_and_keeps_old_ones(any_store):
    for number in range(3):
        any_store.create_page(page(f"p-{number}"), cap=3)
    with pytest.raises(PageLimitReached):
        any_store.create_page(page("p-new"), cap=3)
    assert "p-new" not in any_store.counter_names()
    assert any_store.create_page(page("p-1"), cap=3) is False  # an existing page is no refusal
    assert any_store.page_budget() == type(any_store.page_budget())(created=3, refused=1)


def test_racing_creators_never_pass_the_cap(any_store):
    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(lambda n: _try_create(any_store, f"race-{n}", cap=10), range(40)))
    assert outcomes.count("created") == 10
    assert outcomes.count("refused") == 30
    assert len([name for name in any_store.counter_names() if name.startswith("race-")]) == 10
    assert any_store.page_budget().created == 10


def _try_create(store, name: str, *, cap: int) -> str:
    try:
        return "created" if store.create_page(page(name), cap=cap) else "existed"
    except PageLimitReached:
        return "refused"


def test_tallies_add_up_per_day_and_key(any_store):
    any_store.add_to_tally("sources:site", DAY, "example.com", 2, expires_at=2_000_000_000)
    any_store.add_to_tally("sources:site", DAY, "example.com", 3, expires_at=2_000_000_000)
    any_store.add_to_tally("sources:site", DAY, "utm:newsletter", 1, expires_at=2_000_000_000)
    any_store.add_to_tally("sources:site", NEXT_DAY, "example.com", 7, expires_at=2_000_000_000)
    any_store.add_to_tally("sources:other", DAY, "example.com", 9, expires_at=2_000_000_000)
    assert any_store.read_tally("sources:site", first_day=DAY, last_day=DAY) == {
        (DAY, "example.com"): 5,
        (DAY, "utm:newsletter"): 1,
    }
    both = any_store.read_tally("sources:site", first_day=DAY, last_day=NEXT_DAY)
    assert both[(NEXT_DAY, "example.com")] == 7
    assert len(both) == 3


def test_concurrent_tally_adds_are_exact(any_store):
    with ThreadPoolExecutor(8) as pool:
        list(
            pool.map(
                lambda _: any_store.add_to_tally("pages", DAY, "home-1", 1, expires_at=2_000_000_000),
                range(80),
            )
        )
    assert any_store.read_tally("pages", first_day=DAY, last_day=DAY) == {(DAY, "home-1"): 80}
