"""The stream reader on DynamoDB Local: other writers' changes published once, in order; the app's not."""

from __future__ import annotations

import time

from counters.live.coalesce import Pending, merge
from counters.store.dynamodb.streams.every_stream import own_changes
from counters.store.dynamodb.streams.lease import Lease
from counters.store.dynamodb.streams.reader import StreamReader
from counters.streams.changes import OutsideChanges
from tests.support.outside_writers import aws_cli_add, lambda_add, outside_client, sdk_add
from tests.support.timing import scaled
from tests.unit.streams.conftest import Published, read_until, reader_for, renewed_at


def test_outside_adds_are_published_in_order_and_the_apps_own_writes_are_not(usage, dynamodb_local):
    published = Published()
    reader = reader_for(usage, published, owner="a")
    reader.round()  # takes the lease, starts from the stream's beginning
    own = usage.increment("api-usage", kind="views")
    assert aws_cli_add(dynamodb_local, usage.table, "api-usage", 5) == 6
    assert lambda_add(dynamodb_local, usage.table, [("api-usage", 2), ("api-usage", 3)]) == [8, 11]
    read_until(reader, published, 3)
    # A fourth outside change as the sentinel: a change published twice would show before it.
    assert aws_cli_add(dynamodb_local, usage.table, "api-usage", 1) == 12
    updates = read_until(reader, published, 4)
    assert [(name, value, version) for name, value, version, _ in published.updates] == [
        ("api-usage", 6, own.version),
        ("api-usage", 8, own.version),
        ("api-usage", 11, own.version),
        ("api-usage", 12, own.version),
    ]
    sequences = [int(update[3]) for update in updates]
    assert sequences == sorted(set(sequences)), "each change once, in the stream's order"


def test_the_merge_never_goes_back_and_a_later_read_catches_up(usage, dynamodb_local):
    own = usage.increment("api-usage", kind="views")
    pending: Pending = {}
    merge(pending, [("api-usage", 20, own.version)])  # a read that is ahead of the stream
    merge(pending, [("api-usage", 6, own.version, "000000000000000000010")])
    assert pending["api-usage"] == (20, own.version, "")
    merge(pending, [("api-usage", 21, own.version, "000000000000000000011")])
    assert pending["api-usage"] == (21, own.version, "000000000000000000011")
    merge(pending, [("api-usage", 20, own.version)])  # an older read: not a later state
    assert pending["api-usage"] == (21, own.version, "000000000000000000011")
    merge(pending, [("api-usage", 25, own.version)])  # a read after changes this page missed
    assert pending["api-usage"] == (25, own.version, "")
    merge(pending, [("api-usage", 1, own.version + 1)])  # a reset by staff: a new version
    assert pending["api-usage"] == (1, own.version + 1, "")


def test_a_second_reader_waits_then_takes_over_from_the_checkpoint(usage, dynamodb_local):
    seconds = 1.5
    first, second = Published(), Published()
    holder = reader_for(usage, first, owner="holder", lease_seconds=seconds)
    standby = reader_for(usage, second, owner="standby", lease_seconds=seconds)
    holder.round()
    lambda_add(dynamodb_local, usage.table, [("api-usage", 1), ("api-usage", 1)])
    read_until(holder, first, 2)
    died = time.time()  # the holder's last round: its last renewal was no later
    assert standby.round() == 0 and second.updates == [], "one reader per site"
    assert usage.stream_status()["owner"] == "holder"
    # The holder dies (it stops renewing); another service's changes keep coming.
    client = outside_client(dynamodb_local)
    for _ in range(3):
        sdk_add(client, usage.table, "api-usage")
    while not standby.lease.held and time.time() < died + 4 * seconds:
        standby.round()
        time.sleep(0.02)
    # When the standby took the lease: the expiry it wrote, less the lease.
    took_over = renewed_at(usage, seconds) - died
    # docs/streams.md: within the lease's length and an eighth after the holder's last renewal (and the
    # calls of the round that takes it).
    bound = scaled(seconds * 9 / 8 + 0.25)
    assert standby.lease.held and took_over <= bound, f"took over {took_over:.2f}s after the holder died"
    read_until(standby, second, 3)
    assert usage.stream_status()["owner"] == "standby"
    values = [update[1] for update in first.updates + second.updates]
    assert values == [1, 2, 3, 4, 5], "none lost, none twice"


def test_a_restarted_reader_resumes_from_its_checkpoint(usage, dynamodb_local):
    published = Published()
    reader = reader_for(usage, published, owner="a")
    reader.round()
    lambda_add(dynamodb_local, usage.table, [("api-usage", 4)])
    read_until(reader, published, 1)
    reader.close()  # gives the lease up
    aws_cli_add(dynamodb_local, usage.table, "api-usage", 3)
    again = Published()
    restarted = reader_for(usage, again, owner="b")
    read_until(restarted, again, 1)
    assert [update[1] for update in again.updates] == [7]


def test_the_lag_is_reported_to_the_metrics_the_log_and_the_lease(usage, dynamodb_local, caplog):
    observed: dict[str, float] = {}
    lease = Lease(usage.gateway, owner="a", seconds=10)
    reader = StreamReader(
        table=usage.gateway,
        streams=usage.streams,
        lease=lease,
        handle=own_changes(OutsideChanges(publish=Published(), read=usage.get)),
        observe=lambda result, value: observed.__setitem__(result, value),
    )
    with caplog.at_level("INFO", logger="counters.store.dynamodb.streams.reader"):
        reader.round()
    assert "lag" in observed and observed["lag"] >= 0
    assert any("(oldest unread change)" in message for message in caplog.messages)
    assert lease.lag == observed["lag"]


def test_an_outside_add_to_a_hot_counter_publishes_its_summed_total(usage, dynamodb_local):
    usage.make_hot("api-usage", shards=2)
    usage.increment("api-usage", kind="views")  # lands on a shard
    published = Published()
    reader = reader_for(usage, published, owner="a")
    reader.round()
    aws_cli_add(dynamodb_local, usage.table, "api-usage", 5)  # the other service writes the total item
    (update,) = read_until(reader, published, 1)
    total = usage.get("api-usage")
    assert update[:3] == ("api-usage", total.value, total.version) and total.value == 6
