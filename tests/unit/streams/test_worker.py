"""Web workers read the table's stream by default; a table without one is said once; the memory store
starts nothing and says nothing."""

from __future__ import annotations

import logging
import threading
import time

from counters.store import get_store
from counters.store.dynamodb import schema
from counters.store.dynamodb.streams.reader import NO_STREAM_RECHECK_SECONDS
from counters.streams.worker import start_in_worker, stream_worker
from tests.unit.streams.conftest import Published, reader_for


def stream_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "counters-stream"]


def test_a_worker_reads_the_stream_by_default(store, settings):
    del settings.COUNTERS_STREAM_READER  # the site's default, not the test settings' `off`
    start_in_worker()
    try:
        deadline = time.monotonic() + 15
        while not (store.stream_status() or {}).get("live"):
            assert time.monotonic() < deadline, "no worker took the stream's lease"
            time.sleep(0.05)
        assert stream_threads()
    finally:
        stream_worker().stop()
    assert store.stream_status() is None, "the lease is given up on stop"


def test_off_starts_no_reader(store):
    start_in_worker()  # the test settings: COUNTERS_STREAM_READER=off
    assert stream_threads() == []


def test_the_memory_store_starts_no_reader_and_says_nothing(memory_store, settings, caplog):
    del settings.COUNTERS_STREAM_READER
    with caplog.at_level(logging.INFO, logger="counters"):
        start_in_worker()
    assert stream_worker().reader is None and stream_threads() == []
    assert caplog.records == []


def test_a_table_without_a_stream_is_said_once_and_read_once_it_has_one(store_settings, caplog):
    store = get_store()
    definition = {k: v for k, v in schema.TABLE_DEFINITION.items() if k != "StreamSpecification"}
    store.retrying.create_table(TableName=store.table, **definition)
    published = Published()
    clock = [time.time()]
    reader = reader_for(store, published, owner="a", clock=lambda: clock[0])
    with caplog.at_level(logging.INFO, logger="counters.store.dynamodb.streams"):
        for _ in range(5):
            assert reader.round() == 0
            clock[0] += 1
    said = [record for record in caplog.records if "has no stream" in record.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.WARNING
    assert store.stream_status() is None, "no lease taken for a stream that is not there"

    store.ensure_table()  # `counters_init` turns the stream on
    clock[0] += NO_STREAM_RECHECK_SECONDS
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="counters.store.dynamodb.streams"):
        reader.round()
    assert store.stream_status()["owner"] == "a"
    assert any("has a stream now" in message for message in caplog.messages)
