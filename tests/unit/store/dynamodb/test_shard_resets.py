"""Conditional reset over a counter's total, shards and audit record, against DynamoDB Local."""

from __future__ import annotations

import pytest

from counters.domain.values import CounterDefinition
from counters.exceptions import UnknownCounter, VersionConflict
from counters.store.dynamodb import schema
from tests.support.stores import other_process, shard_values


def audit_records(store, name: str) -> list[dict]:
    return store.retrying.query(
        TableName=store.table,
        KeyConditionExpression="PK = :pk AND begins_with(SK, :reset)",
        ExpressionAttributeValues={":pk": {"S": schema.counter_pk(name)}, ":reset": {"S": "RESET#"}},
        ConsistentRead=True,
    )["Items"]


@pytest.mark.parametrize("shards", [0, 4])
def test_reset_applies_only_at_the_version_seen_and_leaves_an_audit(store, shards):
    store.define_counter(CounterDefinition(name="page", kind="views", start=50, shards=shards))
    for _ in range(10):
        store.increment("page", kind="views")
    seen = store.get("page")
    assert (seen.value, seen.version) == (60, 10)
    store.increment("page", kind="views")  # someone else counted meanwhile
    with pytest.raises(VersionConflict) as conflict:
        store.reset("page", expected_version=seen.version, actor="ann", reason="test data")
    assert (conflict.value.current.value, conflict.value.current.version) == (61, 11)
    assert audit_records(store, "page") == [] and store.get("page").value == 61

    done = store.reset("page", expected_version=11, actor="ann", reason="test data")
    assert (done.value, done.version) == (0, 11 + 1 + shards), "every item's version grows by one"
    assert (store.get("page").value, store.get("page").version) == (0, done.version)
    if shards:
        assert set(shard_values(store, "page").values()) == {0}
    [audit] = audit_records(store, "page")
    assert audit["actor"]["S"] == "ann" and audit["reason"]["S"] == "test data"
    assert (int(audit["old_value"]["N"]), int(audit["old_version"]["N"])) == (61, 11)
    after = store.increment("page", kind="views")
    assert (after.value, after.version) == (1, done.version + 1)
    assert [state.value for state in store.list_counters()] == [1]


def test_a_process_that_knew_the_old_shards_counts_from_zero_after_a_reset(store):
    store.define_counter(CounterDefinition(name="hot", kind="views", shards=4))
    stale = other_process(store)
    for _ in range(20):
        stale.increment("hot", kind="views")  # it now knows every shard at 20 in all
    version = store.get("hot").version
    store.reset("hot", expected_version=version, actor="ann", reason="launch")
    # Its next write returns a shard of a newer epoch: it throws the old sums away and reads again.
    state = stale.increment("hot", kind="views")
    assert (state.value, state.version) == (1, version + 5 + 1)
    assert stale.increment("hot", kind="views").value == 2
    with pytest.raises(UnknownCounter):
        store.reset("ghost", expected_version=0, actor="ann", reason="x")
