"""`counters_init` gives the table its stream: on a new table, and on one made before streams."""

from __future__ import annotations

from counters.store.dynamodb import schema


def stream_of(store) -> dict:
    return store.retrying.describe_table(TableName=store.table)["Table"].get("StreamSpecification") or {}


def test_a_new_table_streams_old_and_new_images(store):
    assert stream_of(store) == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}


def test_a_table_made_without_a_stream_gets_one(store_settings):
    from counters.store import get_store

    store = get_store()
    definition = {k: v for k, v in schema.TABLE_DEFINITION.items() if k != "StreamSpecification"}
    store.retrying.create_table(TableName=store.table, **definition)
    assert stream_of(store) == {}
    assert store.ensure_table() is False  # it was there already
    assert stream_of(store) == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
