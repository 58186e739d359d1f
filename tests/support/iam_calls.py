"""Record the IAM actions a store's DynamoDB and Streams clients call, and on which resource.

Each request is seen as it is sent: `before-send.<service>.<Operation>` is fired by botocore and by the
store's direct writes (counters/store/dynamodb/direct.py) alike, with the request's target and JSON. A
TransactWriteItems is authorised per item (PutItem, UpdateItem, DeleteItem, ConditionCheckItem), so
it is recorded as those; every Streams call is on the table's stream.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from counters.store.dynamodb import backend

TRANSACT_ACTIONS = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
}
STREAM = "stream"  # the resource of a Streams call: the table's stream


@dataclass
class CallRecorder:
    """Every (IAM action, resource) called while each role was being played."""

    role: str = ""
    seen: dict[str, set[tuple[str, str]]] = field(default_factory=dict)

    def watch(self, client: Any) -> Any:
        """Record every call `client` makes from now on; return it."""
        client.meta.events.register(f"before-send.{service_of(client.meta.service_model)}", self._sent)
        return client

    def actions(self, role: str, resource: str) -> set[str]:
        """The actions `role` called on `resource` (a table name, or STREAM)."""
        return {action for action, on in self.seen.get(role, set()) if on == resource}

    def resources(self, role: str) -> set[str]:
        """Every resource `role` called anything on."""
        return {on for _, on in self.seen.get(role, set())}

    @contextmanager
    def playing(self, role: str) -> Iterator[None]:
        """Record what runs inside as `role`'s."""
        self.role = role
        try:
            yield
        finally:
            self.role = ""

    def _sent(self, *, request: Any, **kwargs: Any) -> None:
        target = request.headers["X-Amz-Target"]
        prefix, operation = (target.decode() if isinstance(target, bytes) else target).rsplit(".", 1)
        assert self.role, f"{operation} called outside any role"
        service = "dynamodb-streams" if prefix.startswith("DynamoDBStreams") else "dynamodb"
        calls = self.seen.setdefault(self.role, set())
        calls.update(iam_calls(service, operation, json.loads(request.body or b"{}")))


def service_of(service_model: Any) -> str:
    """The service's name in botocore's events: `dynamodb` or `dynamodb-streams`."""
    return service_model.service_id.hyphenize()


def iam_calls(service: str, operation: str, params: dict) -> set[tuple[str, str]]:
    """The (action, resource) pairs one API call needs allowed."""
    if service == "dynamodb-streams":
        return {(operation, STREAM)}
    if operation == "TransactWriteItems":
        return {
            (TRANSACT_ACTIONS[kind], entry["TableName"])
            for item in params["TransactItems"]
            for kind, entry in item.items()
        }
    if "RequestItems" in params:
        return {(operation, table) for table in params["RequestItems"]}
    return {(operation, params["TableName"])}


@pytest.fixture
def call_recorder(monkeypatch) -> CallRecorder:
    """A recorder watching the clients of every store built from the settings during the test."""
    recorder = CallRecorder()
    built = backend.build_clients

    def watched(connection):
        clients = built(connection)
        for client in (clients.single_shot, clients.retrying, clients.streams):
            recorder.watch(client)
        return clients

    monkeypatch.setattr(backend, "build_clients", watched)
    return recorder
