"""Store metrics on DynamoDB Local: every call timed by operation, failures counted by kind, write batches."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from counters.domain.values import CounterDefinition
from counters.exceptions import StoreUnavailable, UnknownCounter
from counters.metrics import metrics
from counters.store import get_store
from tests.support.metrics import sample
from tests.support.processes import free_port
from tests.support.store_faults import counter_key, store_faults
from tests.support.timing import wait_until

FOLLOWERS = 9
HELD_SECONDS = 1.0


def scraped() -> str:
    return metrics().exposition().decode()


def refused_since(before: str, after: str, operation: str) -> float:
    """Calls of `operation` a condition refused between two scrapes."""
    name = "counters_store_refusals_total"
    return sample(after, name, operation=operation) - sample(before, name, operation=operation)


def test_each_call_is_timed_under_its_operation_and_a_refused_condition_is_no_error(store):
    store.define_counter(CounterDefinition(name="home", kind="views"))
    before = scraped()
    for _ in range(3):
        store.increment("home", kind="views")
    with pytest.raises(UnknownCounter):
        store.increment("nowhere", kind="views")
    text = scraped()
    calls = "counters_store_request_seconds_count"
    assert sample(text, calls, operation="UpdateItem") - sample(before, calls, operation="UpdateItem") == 4
    assert sample(text, "counters_store_request_seconds_sum", operation="UpdateItem") > 0
    # The unknown counter was refused by the write's condition: an answer the app expects, not an error.
    assert refused_since(before, text, "UpdateItem") == 1
    assert sample(text, "counters_store_errors_total") == sample(before, "counters_store_errors_total")


def test_a_throttled_call_counts_under_dynamodbs_error_code(store):
    store.define_counter(CounterDefinition(name="home", kind="views"))
    with store_faults(store) as faults:
        faults.arm("throttle", operation="UpdateItem", times=1, contains=counter_key("home"))
        with pytest.raises(StoreUnavailable):
            store.increment("home", kind="views")
    throttled = {"operation": "UpdateItem", "kind": "ProvisionedThroughputExceededException"}
    assert sample(scraped(), "counters_store_errors_total", **throttled) == 1


def test_a_store_out_of_reach_counts_under_the_exception_class(settings, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test-key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
    settings.COUNTERS_STORE_BACKEND = "counters.store.dynamodb.backend.DynamoCounterStore"
    settings.DYNAMODB_ENDPOINT_URL = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(StoreUnavailable):
        get_store().increment("home", kind="views")
    text = scraped()
    unreachable = {"operation": "UpdateItem", "kind": "EndpointConnectionError"}
    assert sample(text, "counters_store_errors_total", **unreachable) == 1
    assert sample(text, "counters_store_request_seconds_count", operation="UpdateItem") == 1


def test_each_counter_write_observes_how_many_views_it_carried(store):
    store.define_counter(CounterDefinition(name="home", kind="views"))
    with store_faults(store) as faults, ThreadPoolExecutor(FOLLOWERS + 1) as pool:
        # The first write is held in flight, so the nine after it gather into one shared write.
        faults.arm("delay", operation="UpdateItem", times=1, seconds=HELD_SECONDS)
        first = pool.submit(store.increment, "home", kind="views")
        wait_until(lambda: faults.count("UpdateItem") == 1, "the first write held", timeout=HELD_SECONDS)
        followers = [pool.submit(store.increment, "home", kind="views") for _ in range(FOLLOWERS)]
        for future in (first, *followers):
            future.result(timeout=30)
    text = scraped()
    assert store.get("home").value == FOLLOWERS + 1
    assert sample(text, "counters_write_batch_size_count", kind="views") == 2
    assert sample(text, "counters_write_batch_size_sum", kind="views") == FOLLOWERS + 1
    assert sample(text, "counters_write_batch_size_bucket", kind="views", le="1.0") == 1


def test_a_transaction_a_condition_cancelled_is_a_refusal_not_an_error(store):
    definition = CounterDefinition(name="home", kind="views")
    assert store.define_counter(definition) is True
    before = scraped()
    assert store.define_counter(definition) is False  # its items exist: the transaction's conditions refuse
    text = scraped()
    assert refused_since(before, text, "TransactWriteItems") == 1
    assert sample(text, "counters_store_errors_total") == sample(before, "counters_store_errors_total")
