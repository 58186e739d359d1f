"""The store's optional capabilities (counters/store/capabilities.py): what each backend declares, and the
clear error a store gives when asked for one it lacks."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest
from django.core.management import call_command

import counters
from counters.exceptions import InvalidInput
from counters.runtime import runtime
from counters.services.watched import counter_watch
from counters.store.capabilities import STREAMS, WATCHED, MissingCapability, StreamWiring
from counters.store.dynamodb.backend import DynamoCounterStore
from counters.streams.status import stream_status

PACKAGE = Path(counters.__file__).parent
# What talks to DynamoDB: the SDK, and the DynamoDB store's own modules.
DATABASE = ("botocore", "boto3", "counters.store.dynamodb")


def readers_of(store):
    """The store's stream readers, publishing nowhere."""
    return store.stream_readers(
        StreamWiring(
            owner="test",
            lease_seconds=10,
            poll_seconds=1,
            on_changes=lambda changes, own: None,
            publish_states=lambda states: None,
        )
    )


def test_the_memory_store_declares_neither_streams_nor_watched_tables(memory_store):
    assert STREAMS not in memory_store.capabilities and WATCHED not in memory_store.capabilities


@pytest.mark.parametrize(
    ("capability", "ask"),
    [
        (STREAMS, readers_of),
        (STREAMS, lambda store: store.stream_status()),
        (WATCHED, lambda store: store.watched_tables()),
    ],
)
def test_asking_the_memory_store_for_a_capability_it_lacks_is_a_clear_error(memory_store, capability, ask):
    with pytest.raises(MissingCapability) as refused:
        ask(memory_store)
    assert refused.value.capability == capability
    assert isinstance(refused.value, InvalidInput), "a 400 with its sentence, never a 500"
    assert refused.value.detail == f"The counter store MemoryCounterStore does not offer {capability!r}."


def test_the_callers_ask_the_declaration_so_the_memory_store_is_told_apart_without_an_error(memory_store):
    with pytest.raises(InvalidInput, match="Watched counters need the DynamoDB store"):
        counter_watch(name="signups", table="other", key={"pk": {"S": "a"}}, attribute="n")
    assert stream_status() is None, "the admin shows no stream"
    assert runtime().stream_reader.reader is None, "no reader thread to start"
    call_command("counters_watch", "list", stdout=(listed := io.StringIO()))
    assert listed.getvalue() == ""


def test_the_dynamodb_store_declares_streams_and_watched_tables_and_offers_them(store):
    assert {STREAMS, WATCHED} <= store.capabilities
    assert store.stream_status() is None, "nobody reads the new table's stream yet"
    assert store.watched_tables().watches() == []
    readers = readers_of(store)
    try:
        readers.round()
        assert store.stream_status()["owner"] == "test"
    finally:
        readers.close()
    assert store.stream_status() is None, "the lease is given up on close"


def test_a_dynamodb_store_without_a_stream_client_declares_no_streams(store):
    given = DynamoCounterStore(client=store.client, retrying_client=store.retrying, table=store.table)
    assert WATCHED in given.capabilities and STREAMS not in given.capabilities
    with pytest.raises(MissingCapability):
        given.stream_status()


def imported_by(path: Path) -> list[str]:
    """Every module a file imports (for `from a import b`, both `a` and `a.b`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return found


def test_only_the_dynamodb_store_and_the_embedded_launcher_import_botocore_or_the_dynamodb_store():
    allowed = (PACKAGE / "store" / "dynamodb", PACKAGE / "embedded")
    found = [
        f"{path.relative_to(PACKAGE)}: {module}"
        for path in PACKAGE.rglob("*.py")
        if not any(path.is_relative_to(folder) for folder in allowed)
        for module in imported_by(path)
        if module.startswith(DATABASE)
    ]
    assert found == [], "the store is the only layer that talks to the database"
