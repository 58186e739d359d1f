"""Helpers for store tests: many threads at once, a second process's view of a table, raw shard reads,
a store pointed where nothing answers."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from counters.store.dynamodb import schema
from counters.store.dynamodb.backend import DynamoCounterStore
from tests.support.processes import free_port

THREADS = 8
PER_THREAD = 250


def hammer(work) -> None:
    """Run `work` PER_THREAD times in each of THREADS threads, all at once."""

    def loop(_: int) -> None:
        for _ in range(PER_THREAD):
            work()

    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(loop, range(THREADS)))


def shard_values(store, name: str) -> dict[str, int]:
    """The value of every shard item of a counter, read directly."""
    items = store.retrying.query(
        TableName=store.table,
        KeyConditionExpression="PK = :pk AND begins_with(SK, :shard)",
        ExpressionAttributeValues={
            ":pk": {"S": schema.counter_pk(name)},
            ":shard": {"S": schema.SHARD_SK_PREFIX},
        },
        ConsistentRead=True,
    )["Items"]
    return {item["SK"]["S"]: schema.as_int(item.get("value")) for item in items}


def other_process(store) -> DynamoCounterStore:
    """A second store on the same table, as another worker process would have (its own knowledge)."""
    return DynamoCounterStore(client=store.client, retrying_client=store.retrying, table=store.table)


def store_at_nothing(settings, monkeypatch) -> None:
    """The DynamoDB store, with credentials (so it tries), at a port where nothing listens."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test-key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
    settings.COUNTERS_STORE_BACKEND = "counters.store.dynamodb.backend.DynamoCounterStore"
    settings.DYNAMODB_ENDPOINT_URL = f"http://127.0.0.1:{free_port()}"
    settings.AWS_REGION = "us-east-1"
