"""The edge's thread pools are the runtime's: sized by the settings, closed with it, found at each call."""

from __future__ import annotations

import threading

import pytest

from counters.runtime import Runtime, use_runtime
from counters.runtime.pools import RuntimePool


def thread_name() -> str:
    return threading.current_thread().name


def test_closing_the_runtime_closes_its_pools():
    process = Runtime()
    requests, beacons = process.request_threads, process.beacon_threads
    assert requests.submit(thread_name).result().startswith("request")
    process.close()
    for pool in (requests, beacons):
        with pytest.raises(RuntimeError, match="after shutdown"):
            pool.submit(thread_name)


def test_a_new_pool_size_closes_the_old_pool_and_the_next_use_gets_one_that_size(settings, process_runtime):
    old = process_runtime.request_threads
    settings.COUNTERS_DYNAMODB_MAX_POOL = 3
    with pytest.raises(RuntimeError, match="after shutdown"):
        old.submit(thread_name)
    assert process_runtime.request_threads._max_workers == 3


def test_work_handed_to_the_edge_runs_in_the_pool_of_the_runtime_current_then():
    edge = RuntimePool(lambda process: process.beacon_threads)  # as an ASGI app built at start-up holds it
    with use_runtime(Runtime()) as first:
        assert edge.submit(thread_name).result().startswith("beacon")
    with use_runtime(Runtime()) as second:
        assert edge.submit(thread_name).result().startswith("beacon"), "not the first runtime's closed pool"
        assert second.built("beacon_threads") is not None and first.built("beacon_threads") is None
