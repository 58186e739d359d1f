"""Exactness under threads, against DynamoDB Local: atomic increments versus a naive get-then-put."""

from __future__ import annotations

from counters.domain.values import CounterDefinition
from counters.store.dynamodb import schema
from tests.support.stores import PER_THREAD, THREADS, hammer


def test_atomic_increments_are_exact_under_threads(store):
    store.define_counter(CounterDefinition(name="hot", kind="views"))
    hammer(lambda: store.increment("hot", kind="views"))
    state = store.get("hot")
    assert state.value == THREADS * PER_THREAD
    # The version counts writes: increments that met in flight shared one (group commit), and one write
    # never carries more than one increment per thread.
    assert THREADS * PER_THREAD / THREADS <= state.version < THREADS * PER_THREAD


def test_naive_get_then_put_loses_updates(store):
    """The read-modify-write this project never does, measured on the same store."""
    store.define_counter(CounterDefinition(name="naive", kind="views"))
    client, table = store.retrying, store.table

    def naive_increment() -> None:
        item = client.get_item(TableName=table, Key=schema.total_key("naive"), ConsistentRead=True)["Item"]
        value = int(item.get(schema.VALUE, {"N": "0"})["N"])
        item[schema.VALUE] = {"N": str(value + 1)}
        client.put_item(TableName=table, Item=item)

    hammer(naive_increment)
    final = store.get("naive").value
    assert final < THREADS * PER_THREAD, "get-then-put should lose updates under contention"
