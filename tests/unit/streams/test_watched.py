"""A counter that lives in another table: shown, followed live (its stream, or polls), reset by staff."""

from __future__ import annotations

import time

import pytest

from counters import selectors, services
from counters.exceptions import Conflict, UnknownCounter
from counters.services.watched import counter_watch
from counters.store.capabilities import StreamWiring
from counters.store.dynamodb.streams.every_stream import EveryStream
from tests.support.outside_writers import KEY, add_units, other_table


class Published:
    def __init__(self) -> None:
        self.states = []

    def __call__(self, states) -> None:
        self.states.extend(states)


def every_stream(store, published: Published) -> EveryStream:
    wiring = StreamWiring(
        owner="test",
        lease_seconds=10,
        poll_seconds=0.2,
        on_changes=lambda changes, own: None,
        publish_states=published,
    )
    return EveryStream(store.gateway, store.streams, wiring)


def run_until(streams: EveryStream, published: Published, value: int, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        streams.round()
        if published.states and published.states[-1].value == value:
            return
        time.sleep(0.1)
    raise AssertionError(f"never published {value}: {published.states}")


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "polled"])
def test_a_watched_item_shows_moves_live_and_resets(store, dynamodb_local, stream):
    client, table = other_table(dynamodb_local, stream=stream)
    state = counter_watch(name="api-units", table=table, key=KEY, attribute="units", title="API units")
    assert state.value == 7
    assert {c.name: c.value for c in selectors.counter_list()}["api-units"] == 7

    published = Published()
    streams = every_stream(store, published)
    streams.round()
    add_units(client, table, 5)
    run_until(streams, published, 12)
    shown = store.get("api-units")
    assert (shown.value, published.states[-1].version) == (12, shown.version)

    services.counter_reset(name="api-units", expected_version=shown.version, actor="ann", reason="new month")
    item = client.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"]
    assert item == {**KEY, "units": {"N": "0"}}, "only the attribute changed there"
    assert client.scan(TableName=table)["Count"] == 1, "nothing else written to that table"
    assert store.get("api-units").value == 0
    assert [(r.actor, r.old_value) for r in store.reset_history("api-units")] == [("ann", 12)]
    add_units(client, table, 3)
    run_until(streams, published, 3)
    streams.close()


def test_a_reset_refused_when_the_other_table_moved_on(store, dynamodb_local):
    client, table = other_table(dynamodb_local, stream=False)
    state = counter_watch(name="api-units", table=table, key=KEY, attribute="units")
    add_units(client, table, 1)  # not mirrored yet
    with pytest.raises(Conflict):
        services.counter_reset(name="api-units", expected_version=state.version, actor="ann", reason="x")
    assert client.get_item(TableName=table, Key=KEY)["Item"]["units"] == {"N": "8"}


def test_a_watched_counter_is_in_the_api_and_counted_only_by_its_own_table(store, dynamodb_local, client):
    _, table = other_table(dynamodb_local, stream=False)
    counter_watch(name="api-units", table=table, key=KEY, attribute="units", title="API units")
    answer = client.get("/api/counters/api-units").json()
    assert (answer["name"], answer["value"], answer["title"]) == ("api-units", 7, "API units")
    with pytest.raises(UnknownCounter):
        store.increment("api-units", kind="views")
    assert store.get("api-units").value == 7
