"""Shards are read parent before child; an expired iterator is renewed from the checkpoint."""

from __future__ import annotations

from botocore.exceptions import ClientError

from counters.store.dynamodb.streams.shards import Shard, readable
from tests.support.outside_writers import lambda_add
from tests.unit.streams.conftest import Published, read_until, reader_for


def ids(shards: list[Shard]) -> list[str]:
    return [shard.id for shard in shards]


def test_a_child_waits_for_its_parent_and_a_trimmed_parent_waits_for_nothing():
    parent = Shard("p", None, closed=True)
    left, right = Shard("l", "p", closed=False), Shard("r", "p", closed=False)
    orphan = Shard("o", "gone-from-the-stream", closed=False)
    shards = [parent, left, right, orphan]
    assert ids(readable(shards, done=set())) == ["p", "o"]
    assert ids(readable(shards, done={"p"})) == ["l", "r", "o"]


class ExpiringOnce:
    """The streams client, except that the first GetRecords after `expire()` says the iterator expired."""

    def __init__(self, streams) -> None:
        self._streams = streams
        self._expire = False

    def expire(self) -> None:
        self._expire = True

    def get_records(self, **kwargs):
        if self._expire:
            self._expire = False
            error = {"Error": {"Code": "ExpiredIteratorException", "Message": "Iterator expired"}}
            raise ClientError(error, "GetRecords")
        return self._streams.get_records(**kwargs)

    def __getattr__(self, name):
        return getattr(self._streams, name)


def test_an_expired_iterator_is_renewed_from_the_checkpoint(usage, dynamodb_local):
    published, streams = Published(), ExpiringOnce(usage.streams)
    reader = reader_for(usage, published, owner="a", streams=streams)
    reader.round()
    lambda_add(dynamodb_local, usage.table, [("api-usage", 2)])
    read_until(reader, published, 1)
    streams.expire()
    lambda_add(dynamodb_local, usage.table, [("api-usage", 3)])
    read_until(reader, published, 2)
    assert [update[1] for update in published.updates] == [2, 5], "nothing lost, nothing twice"
