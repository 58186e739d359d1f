"""Store round trips counted on the wire: botocore's `before-send` of every attempt, with its thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class RoundTrips:
    """The DynamoDB operations sent while counting, each with the thread that sent it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.sent: list[tuple[int, str]] = []

    def before_send(self, event_name: str, **kwargs: Any) -> None:
        """botocore's `before-send` handler: note the operation and send it as usual."""
        with self._lock:
            self.sent.append((threading.get_ident(), event_name.rsplit(".", 1)[-1]))

    def of_thread(self, thread: int | None = None) -> list[str]:
        """The operations one thread sent (this one by default), in order."""
        thread = threading.get_ident() if thread is None else thread
        with self._lock:
            return [operation for sender, operation in self.sent if sender == thread]

    def operations(self) -> list[str]:
        """Every operation sent, from any thread."""
        with self._lock:
            return [operation for _, operation in self.sent]


@contextmanager
def round_trips(store: Any) -> Iterator[RoundTrips]:
    """Count every attempt of the store's clients (the one that never resends and the retrying one)."""
    counted = RoundTrips()
    clients = {id(client): client for client in (store.client, store.retrying)}.values()
    for client in clients:
        client.meta.events.register("before-send.dynamodb", counted.before_send)
    try:
        yield counted
    finally:
        for client in clients:
            client.meta.events.unregister("before-send.dynamodb", counted.before_send)
