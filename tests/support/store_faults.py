"""Faults on one DynamoDB operation, in this process, through botocore's `before-send` event.

`before-send` is emitted for every attempt the SDK makes (so resends are seen and counted) after the
request is signed; a handler may answer in DynamoDB's place or raise as a broken connection does.
Rules are armed like the fault proxy's (tests/support/faultproxy.py, for a site in another process):
first match wins, each may be limited to `times` requests. Actions:

- `lost_response`: send the request to DynamoDB, which applies it, then fail as a connection cut
  before the answer came (ConnectionClosedError);
- `reset`: fail as that cut connection without sending anything (nothing happened);
- `throttle`: answer as DynamoDB does when throttling (HTTP 400, `error_type`), sending nothing;
- `delay`: wait `seconds`, then send the request as usual (a slow store).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import requests
from botocore.awsrequest import AWSResponse
from botocore.exceptions import ConnectionClosedError

from tests.support.fault_rules import Rules, counter_key
from tests.support.store_hooks import before_every_attempt

__all__ = ["StoreFaults", "counter_key", "store_faults"]


class _Body:
    """The raw body of an answer made up here, as AWSResponse reads it."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self, **kwargs: Any) -> Iterator[bytes]:
        yield self.data


class StoreFaults(Rules):
    """Rules applied to every attempt of the given boto3 clients."""

    actions = frozenset({"delay", "lost_response", "reset", "throttle"})

    def before_send(self, request: Any, event_name: str, **kwargs: Any) -> AWSResponse | None:
        """botocore's `before-send` handler: None sends the request as usual."""
        body = request.body.decode() if isinstance(request.body, bytes) else str(request.body or "")
        rule = self.take(event_name.rsplit(".", 1)[-1], body)
        if rule is None:
            return None
        if rule.action == "delay":
            time.sleep(rule.seconds)
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
    with before_every_attempt(store, faults.before_send, first=True):
        yield faults
