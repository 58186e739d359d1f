"""Group commit on DynamoDB Local: views of one counter that meet in flight share one UpdateItem ADD n."""

from __future__ import annotations

import functools
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from counters.domain.values import CounterDefinition
from counters.exceptions import OutcomeUnknown, StoreUnavailable
from tests.support.store_faults import counter_key, store_faults
from tests.support.timing import wait_until

FOLLOWERS = 9
# The first write is held this long, so the followers surely arrive while it is in flight.
HELD_SECONDS = 1.5


def in_flight(faults) -> None:
    """Wait until the first UpdateItem is held by its delay: it is in flight from then on."""
    wait_until(lambda: faults.count("UpdateItem") >= 1, "the first write in flight", timeout=10)


def first_then_followers(store, faults, name: str, *, bots: bool = False) -> tuple[Future, list[Future]]:
    """One view (or bot view) held in flight, then FOLLOWERS more of the same counter while it is."""
    pool = ThreadPoolExecutor(FOLLOWERS + 1)
    if bots:
        write = functools.partial(store.add_bot_view, name)
    else:
        write = functools.partial(store.increment, name, kind="views")
    first = pool.submit(write)
    in_flight(faults)
    followers = [pool.submit(write) for _ in range(FOLLOWERS)]
    pool.shutdown(wait=False)
    return first, followers


def outcome(future: Future) -> object:
    """The answer, or the exception raised in its place."""
    try:
        return future.result(timeout=30)
    except Exception as error:  # compared by the test
        return error


@pytest.mark.parametrize(("step", "shards"), [(1, 0), (5, 0), (1, 4)])
def test_views_that_meet_in_flight_share_one_write_and_are_answered_after_it(store, step, shards):
    store.define_counter(CounterDefinition(name="home", kind="views", step=step, shards=shards))
    with store_faults(store) as faults:
        faults.arm("delay", operation="UpdateItem", times=1, seconds=HELD_SECONDS)
        first, followers = first_then_followers(store, faults, "home")
        answers = [future.result(timeout=30) for future in followers]
    assert (first.result().value, first.result().version) == (step, 1)
    # One write carried the nine: each is answered with the total after it, none counted twice.
    assert {(state.value, state.version) for state in answers} == {(step * (FOLLOWERS + 1), 2)}
    assert faults.count("UpdateItem", contains=("home",)) == 2
    state = store.get("home")
    assert (state.value, state.version) == (step * (FOLLOWERS + 1), 2)


@pytest.mark.parametrize(
    ("fault", "error", "counted"),
    [
        ("throttle", StoreUnavailable, 1),
        ("reset", StoreUnavailable, 1),
        ("lost_response", OutcomeUnknown, 10),
    ],
)
def test_a_failed_shared_write_fails_every_view_it_carried(store, fault, error, counted):
    store.define_counter(CounterDefinition(name="home", kind="views"))
    with store_faults(store) as faults:
        faults.arm("delay", operation="UpdateItem", times=1, seconds=HELD_SECONDS)
        faults.arm(fault, operation="UpdateItem", times=1, contains=counter_key("home"))
        first, followers = first_then_followers(store, faults, "home")
        outcomes = [outcome(future) for future in followers]
    assert first.result().value == 1
    assert all(isinstance(result, error) for result in outcomes), outcomes
    # Refused or cut before sending: none of the nine counted; cut after DynamoDB applied it: all nine
    # counted, each answered "outcome unknown" as a single lost write would be.
    assert store.get("home").value == counted
    # The next view is written on its own and counts once.
    assert store.increment("home", kind="views").value == counted + 1


def test_bot_views_that_meet_in_flight_share_one_write(store):
    store.define_counter(CounterDefinition(name="home", kind="views"))
    with store_faults(store) as faults:
        faults.arm("delay", operation="UpdateItem", times=1, seconds=HELD_SECONDS)
        first, followers = first_then_followers(store, faults, "home", bots=True)
        answers = [future.result(timeout=30) for future in followers]
    assert first.result().bot_views == 1
    assert {state.bot_views for state in answers} == {FOLLOWERS + 1}
    assert faults.count("UpdateItem", contains=("home",)) == 2
    state = store.get("home")
    assert (state.value, state.version, state.bot_views) == (0, 0, FOLLOWERS + 1)


def test_counters_do_not_wait_for_each_other(store):
    for name in ("home", "docs"):
        store.define_counter(CounterDefinition(name=name, kind="views"))
    with store_faults(store) as faults:
        faults.arm("delay", operation="UpdateItem", times=1, seconds=HELD_SECONDS, contains=("home",))
        with ThreadPoolExecutor(2) as pool:
            slow = pool.submit(store.increment, "home", kind="views")
            in_flight(faults)
            began = time.monotonic()
            assert store.increment("docs", kind="views").value == 1
            other_took = time.monotonic() - began
            assert slow.result().value == 1
    assert other_took < HELD_SECONDS / 2, "a write of another counter waited for the held one"


def test_many_threads_on_one_counter_count_exactly_in_fewer_writes(store):
    store.define_counter(CounterDefinition(name="home", kind="views"))
    threads, per_thread = 16, 50
    barrier = threading.Barrier(threads)

    def views(_: int) -> list[int]:
        barrier.wait()
        return [store.increment("home", kind="views").version for _ in range(per_thread)]

    with store_faults(store) as faults, ThreadPoolExecutor(threads) as pool:
        versions = [version for answered in pool.map(views, range(threads)) for version in answered]
    state = store.get("home")
    assert state.value == threads * per_thread
    writes = faults.count("UpdateItem", contains=("home",))
    assert state.version == writes == len(set(versions)) < threads * per_thread
