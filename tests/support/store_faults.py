"""Faults on one DynamoDB operation, in this process, through botocore's `before-send` event.

`before-send` is emitted for every attempt the SDK makes (so resends are seen and counted) after the
request is signed; a handler may answer in DynamoDB's place or raise as a broken connection does.
Rules are armed like the fault proxy's (tests/support/faultproxy.py, for a site in another process):
first match wins, each may be limited to `times` requests. Actions:

- `lost_response`: send the request to DynamoDB, which applies it, then fail as a connection cut
  before the answer came (ConnectionClosedError);
- `reset`: fail as that cut connection without sending anything (nothing happened);
- `throttle`: answer as DynamoDB does when throttling (HTTP 400, `error_type`), sending nothing.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import requests
from botocore.awsrequest import AWSResponse
from botocore.exceptions import ConnectionClosedError

ACTIONS = frozenset({"lost_response", "reset", "throttle"})
THROTTLED = "ProvisionedThroughputExceededException"


@dataclass
class Rule:
    """What to do with matching requests: every string of `contains` must be in the request body."""

    action: str
    operation: str | None = None
    contains: tuple[str, ...] = ()
    times: int | None = None
    error_type: str = THROTTLED

    def matches(self, operation: str, body: str) -> bool:
        """Whether this rule applies to this request and has uses left."""
        return (
            (self.times is None or self.times > 0)
            and self.operation in (None, operation)
            and all(part in body for part in self.contains)
        )


@dataclass(frozen=True)
class Seen:
    """One attempt the SDK made."""

    operation: str
    action: str
    body: str


class _Body:
    """The raw body of an answer made up here, as AWSResponse reads it."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self, **kwargs: Any) -> Iterator[bytes]:
        yield self.data


class StoreFaults:
    """Rules applied to every attempt of the given boto3 clients."""

    def __init__(self) -> None:
        self.seen: list[Seen] = []
        self._rules: list[Rule] = []
        self._lock = threading.Lock()

    def arm(
        self, action: str, *, operation: str | None = None, times: int | None = None, **options: Any
    ) -> Rule:
        """Apply `action` to the next `times` requests of `operation` (None: all, forever)."""
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}; one of {sorted(ACTIONS)}")
        rule = Rule(action=action, operation=operation, times=times, **options)
        with self._lock:
            self._rules.append(rule)
        return rule

    def count(self, operation: str, *, contains: tuple[str, ...] = ()) -> int:
        """How many attempts of `operation` whose body holds every string of `contains` were made."""
        with self._lock:
            return sum(
                1 for s in self.seen if s.operation == operation and all(part in s.body for part in contains)
            )

    def before_send(self, request: Any, event_name: str, **kwargs: Any) -> AWSResponse | None:
        """botocore's `before-send` handler: None sends the request as usual."""
        operation = event_name.rsplit(".", 1)[-1]
        body = request.body.decode() if isinstance(request.body, bytes) else str(request.body or "")
        with self._lock:
            rule = next((rule for rule in self._rules if rule.matches(operation, body)), None)
            if rule is not None and rule.times is not None:
                rule.times -= 1
            self.seen.append(Seen(operation, rule.action if rule else "forward", body))
        if rule is None:
            return None
        if rule.action == "throttle":
            return throttled(request.url, rule.error_type)
        if rule.action == "lost_response":
            requests.post(request.url, data=request.body, headers=dict(request.headers), timeout=10)
        raise ConnectionClosedError(endpoint_url=request.url)


def throttled(url: str, error_type: str) -> AWSResponse:
    """DynamoDB's answer to a throttled request."""
    body = json.dumps(
        {"__type": f"com.amazonaws.dynamodb.v20120810#{error_type}", "message": "Throttled here."}
    )
    headers = {"Content-Type": "application/x-amz-json-1.0", "x-amzn-RequestId": "store-faults"}
    return AWSResponse(url, 400, headers, _Body(body.encode()))


@contextmanager
def store_faults(store: Any) -> Iterator[StoreFaults]:
    """Faults on every attempt of the store's clients (the one that never resends and the retrying one)."""
    faults = StoreFaults()
    clients = {id(client): client for client in (store.client, store.retrying)}.values()
    for client in clients:
        client.meta.events.register_first("before-send.dynamodb", faults.before_send)
    try:
        yield faults
    finally:
        for client in clients:
            client.meta.events.unregister("before-send.dynamodb", faults.before_send)


def counter_key(name: str) -> tuple[str, ...]:
    """Strings that only a request on counter `name`'s total item holds (see store/dynamodb/schema.py)."""
    return (f'"C#{name}"', '"TOTAL"')
