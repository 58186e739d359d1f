"""The store's limit: raw boto3 UpdateItem ADD calls/s against the same DynamoDB Local, at each C."""

from __future__ import annotations

from typing import Any

from bench.budget import CONCURRENCIES, Budget
from bench.environment import BenchEnvironment
from bench.load import run_calls
from bench.measure import cpu_share, summarise


class RawCounter:
    """One item incremented with bare boto3 calls: no Django, no store code, one shared client."""

    def __init__(self, env: BenchEnvironment, name: str) -> None:
        # One client for every thread (boto3 clients are thread-safe), pooled for the highest C.
        self.client: Any = env.raw_client(pool=max(CONCURRENCIES))
        self.table = env.table
        self.key = {"PK": {"S": f"C#{name}"}, "SK": {"S": "TOTAL"}}

    def add(self) -> None:
        """One atomic ADD with UPDATED_NEW: the least a counted view must cost the store."""
        self.client.update_item(
            TableName=self.table,
            Key=self.key,
            UpdateExpression="ADD #value :one",
            ExpressionAttributeNames={"#value": "value"},
            ExpressionAttributeValues={":one": {"N": "1"}},
            ReturnValues="UPDATED_NEW",
        )

    def naive_add(self) -> None:
        """The lost-update baseline: read the value, then write it back plus one."""
        self.client.put_item(TableName=self.table, Item={**self.key, "value": {"N": str(self.value() + 1)}})

    def value(self) -> int:
        """The item's value now (strongly consistent)."""
        response = self.client.get_item(TableName=self.table, Key=self.key, ConsistentRead=True)
        return int(response.get("Item", {}).get("value", {}).get("N", "0"))


def run(env: BenchEnvironment, budget: Budget, results: dict) -> dict:
    """Calls/s and latency of raw UpdateItem ADD at C = 1, 8, 32; the total must equal the calls made."""
    raw = RawCounter(env, "bench-raw-store")
    run_calls(lambda i: raw.add(), concurrency=1, total=budget.warmup)
    start = raw.value()
    rows, made = [], 0
    for concurrency in CONCURRENCIES:
        row: dict = {"path": "raw UpdateItem ADD"}
        with cpu_share(env.pids(), row):
            result = run_calls(
                lambda i: raw.add(),
                concurrency=concurrency,
                total=budget.requests_at(concurrency),
                time_limit=budget.time_limit,
            )
        made += result.ok
        rows.append({**row, **summarise(result)})
    counted = raw.value() - start
    return {
        "title": "Store limit: raw boto3 UpdateItem ADD on the same DynamoDB Local",
        "rows": rows,
        "checks": {"acknowledged": made, "counted": counted, "exact": counted == made},
    }


def paired_limit(raw: RawCounter, *, concurrency: int, budget: Budget) -> float:
    """The store limit at `concurrency` measured right now, just before the site run it is compared to.

    The machine is shared, so a baseline taken minutes earlier could flatter or shame the site; pairing
    each site run with its own baseline keeps both under the same background load.
    """
    result = run_calls(
        lambda i: raw.add(),
        concurrency=concurrency,
        total=budget.requests_at(concurrency),
        time_limit=budget.time_limit,
    )
    return summarise(result)["per_second"]
