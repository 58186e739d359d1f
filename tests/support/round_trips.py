"""Store round trips counted on the wire: botocore's `before-send` of every attempt, with its thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.support.store_hooks import before_every_attempt


class RoundTrips:
    """The DynamoDB operations sent while counting, each with the thread that sent it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.sent: list[tuple[int, str]] = []
        self.thread_names: dict[int, str] = {}

    def before_send(self, event_name: str, **kwargs: Any) -> None:
        """botocore's `before-send` handler: note the operation and send it as usual."""
        with self._lock:
            self.sent.append((threading.get_ident(), event_name.rsplit(".", 1)[-1]))
            self.thread_names[threading.get_ident()] = threading.current_thread().name

    def of_thread(self, thread: int | None = None) -> list[str]:
        """The operations one thread sent (this one by default), in order."""
        thread = threading.get_ident() if thread is None else thread
        with self._lock:
            return [operation for sender, operation in self.sent if sender == thread]

    def of_threads_named(self, prefixes: tuple[str, ...]) -> list[str]:
        """The operations sent by threads whose names start with one of `prefixes`, in order."""
        with self._lock:
            return [op for sender, op in self.sent if self.thread_names[sender].startswith(prefixes)]

    def operations(self) -> list[str]:
        """Every operation sent, from any thread."""
        with self._lock:
            return [operation for _, operation in self.sent]


@contextmanager
def round_trips(store: Any) -> Iterator[RoundTrips]:
    """Count every attempt of the store's clients (the one that never resends and the retrying one)."""
    counted = RoundTrips()
    with before_every_attempt(store, counted.before_send):
        yield counted
