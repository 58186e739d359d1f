"""What the stream tests share: a counter another service adds to, and a reader that records its pushes."""

from __future__ import annotations

import time

import pytest

from counters.domain.values import CounterDefinition
from counters.store.dynamodb import schema
from counters.store.dynamodb.streams.every_stream import own_changes
from counters.store.dynamodb.streams.lease import Lease
from counters.store.dynamodb.streams.reader import StreamReader
from counters.streams.changes import OutsideChanges


class Published:
    """What a reader handed to the live push, in order."""

    def __init__(self) -> None:
        self.updates: list[tuple] = []

    def __call__(self, updates: list[tuple]) -> None:
        self.updates.extend(updates)


def reader_for(
    store, published: Published, *, owner: str, lease_seconds: float = 10.0, streams=None, **options
) -> StreamReader:
    """A reader of the store's table stream, as `owner` (through `streams` if given; `options`: the
    reader's own, e.g. its clock)."""
    lease = Lease(store.gateway, owner=owner, seconds=lease_seconds)
    return StreamReader(
        table=store.gateway,
        streams=streams or store.streams,
        lease=lease,
        handle=own_changes(OutsideChanges(publish=published, read=store.get)),
        **options,
    )


def read_until(reader: StreamReader, published: Published, count: int, timeout: float = 15) -> list[tuple]:
    """Run rounds until `count` updates were published."""
    deadline = time.monotonic() + timeout
    while len(published.updates) < count and time.monotonic() < deadline:
        reader.round()
        time.sleep(0.05)
    return published.updates


def renewed_at(store, seconds: float) -> float:
    """When the lease of the store's stream was last taken or renewed: the expiry written, less the lease."""
    item = store.gateway.get_item(schema.lease_key(store.table))
    return int(item[schema.UNTIL_MS]["N"]) / 1000 - seconds


@pytest.fixture
def usage(store):
    """A registered counter another service also adds to."""
    store.define_counter(CounterDefinition(name="api-usage", kind="views"))
    return store
