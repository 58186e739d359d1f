"""A counter's start lives in its stored total, so another service's `ADD value :n` builds on it.

Against DynamoDB Local, with the other service's writes sent from a plain boto3 client of its own; and
counters defined before the start lived there (only `start` on the item) moved once by `move_starts`.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from counters.domain.values import CounterDefinition
from counters.store.dynamodb import schema
from tests.support.old_items import define_as_before, old_app_view, total_item
from tests.support.outside_writers import outside_client, sdk_add
from tests.support.stores import other_process


def test_other_writers_build_on_the_start_and_so_does_the_app(store, dynamodb_local):
    store.define_counter(CounterDefinition(name="pricing", kind="views", start=1000))
    other = outside_client(dynamodb_local)

    assert [sdk_add(other, store.table, "pricing", 1) for _ in range(5)] == [1001, 1002, 1003, 1004, 1005]
    assert store.get("pricing").value == 1005
    assert store.increment("pricing", kind="views").value == 1006
    assert other_process(store).get("pricing").value == 1006


def test_a_hot_counters_start_is_in_its_base(store, dynamodb_local):
    store.define_counter(CounterDefinition(name="launch", kind="views", start=100, shards=4))
    other = outside_client(dynamodb_local)
    for _ in range(5):
        sdk_add(other, store.table, "launch", 1)
    for _ in range(10):
        store.increment("launch", kind="views")
    assert store.get("launch").value == 115
    assert other_process(store).get("launch").value == 115


def test_starts_of_a_table_from_before_move_once(store, dynamodb_local):
    other = outside_client(dynamodb_local)
    for name, start in (("untouched", 1000), ("outside", 1000), ("viewed", 1000), ("plain", 0)):
        define_as_before(store, CounterDefinition(name=name, kind="views", start=start))
    for _ in range(5):
        sdk_add(other, store.table, "outside", 1)
    old_app_view(store, "viewed")  # took the start in: 1001
    sdk_add(other, store.table, "viewed", 2)
    sdk_add(other, store.table, "plain", 3)
    assert store.get("outside").value == 5, "the fault being fixed: the other writer built on 0"

    assert store.move_starts() == 2  # "untouched" and "outside"
    moved = {name: store.get(name).value for name in ("untouched", "outside", "viewed", "plain")}
    assert moved == {"untouched": 1000, "outside": 1005, "viewed": 1003, "plain": 3}
    assert store.move_starts() == 0
    assert {name: store.get(name).value for name in moved} == moved
    assert all(total_item(store, name)[schema.START_APPLIED] == {"BOOL": True} for name in moved)

    assert sdk_add(other, store.table, "untouched", 1) == 1001
    assert store.increment("outside", kind="views").value == 1006


def test_an_app_write_to_an_old_item_only_others_wrote_moves_its_start_in_first(store, dynamodb_local):
    define_as_before(store, CounterDefinition(name="pricing", kind="views", start=1000))
    other = outside_client(dynamodb_local)
    for _ in range(5):
        sdk_add(other, store.table, "pricing", 1)

    assert store.increment("pricing", kind="views").value == 1006
    assert store.move_starts() == 0
    assert store.get("pricing").value == 1006


def test_moving_starts_while_others_and_the_app_write_loses_and_doubles_nothing(store, dynamodb_local):
    """Two movers again and again while another service ADDs and the app counts, on every old state."""
    names = ("untouched", "outside", "viewed")
    for name in names:
        define_as_before(store, CounterDefinition(name=name, kind="views", start=1000))
    other = outside_client(dynamodb_local)
    sdk_add(other, store.table, "outside", 1)
    old_app_view(store, "viewed")
    adds, views = 40, 40
    writers_done = threading.Event()
    began = threading.Barrier(2 * len(names) + 2)

    def outside(name: str) -> None:
        began.wait()
        for _ in range(adds):
            sdk_add(other, store.table, name, 1)

    def app(name: str) -> None:
        began.wait()
        for _ in range(views):
            store.increment(name, kind="views")

    def mover() -> int:
        began.wait()
        moved = 0
        while not writers_done.is_set():
            moved += store.move_starts()
        return moved + store.move_starts()

    with ThreadPoolExecutor(2 * len(names) + 2) as pool:
        movers = [pool.submit(mover) for _ in range(2)]
        writers = [pool.submit(work, name) for name in names for work in (outside, app)]
        for done in writers:
            done.result()
        writers_done.set()
        moved = sum(done.result() for done in movers)

    assert moved <= 2, "the start of `untouched` and `outside` went in at most once each"
    assert {name: store.get(name).value for name in names} == {
        "untouched": 1000 + adds + views,
        "outside": 1000 + 1 + adds + views,
        "viewed": 1000 + 1 + adds + views,
    }
    assert store.move_starts() == 0
