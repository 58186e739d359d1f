"""Run the stream reader in a background thread: inside a web worker, or in `manage.py counters_stream`.

Every process that runs one competes for the lease; the one holding it reads, the others look at the
lease every eighth of its length and take over when the holder stops renewing it (the store's lease:
counters/store/dynamodb/streams/lease.py).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable

from counters import conf
from counters.domain.values import CounterState
from counters.metrics import metrics
from counters.runtime import runtime
from counters.store.base import CounterStore
from counters.store.capabilities import STREAMS, StreamReaders, StreamWiring
from counters.streams.changes import OutsideChanges, Publish

logger = logging.getLogger(__name__)

# Back off after a failed round (DynamoDB down, stream not enabled yet) up to this many seconds.
MAX_BACKOFF_SECONDS = 30.0


def owner_name() -> str:
    """This process's name on the lease: host, pid and a random part (a pid is reused after a restart)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


def build_reader(
    store: CounterStore, *, publish_updates: Publish, publish_states: Callable[[list[CounterState]], None]
) -> StreamReaders | None:
    """The readers of the store's streams, publishing what changed (None: the store has no stream)."""
    if STREAMS not in store.capabilities:
        # The in-memory store: nothing else writes it, so there is nothing to read and nothing to say.
        logger.debug("The counter store %s has no stream to read", type(store).__name__)
        return None
    found = metrics()

    def observe(result: str, value: float) -> None:
        if result == "lag":
            found.stream_lag.set(value)
        else:
            found.stream_changes.labels(result).inc(value)

    return store.stream_readers(
        StreamWiring(
            owner=owner_name(),
            lease_seconds=conf.stream_lease_seconds(),
            poll_seconds=conf.watch_poll_seconds(),
            on_changes=OutsideChanges(publish=publish_updates, read=store.get, observe=observe),
            publish_states=publish_states,
            observe=observe,
        )
    )


class StreamWorker:
    """The reader's thread; started once, stopped (and its lease given up) with the runtime."""

    def __init__(self, reader: StreamReaders | None, *, poll_seconds: float) -> None:
        self.reader = reader
        self._poll = poll_seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def ensure_started(self) -> None:
        """Start the thread unless it runs already (or there is nothing to read)."""
        if self._thread is not None:
            return
        with self._lock:
            if self._thread is None and self.reader is not None and not self._stop.is_set():
                self._thread = threading.Thread(target=self.run, name="counters-stream", daemon=True)
                self._thread.start()

    def run(self) -> None:
        """Read rounds until stopped; a full batch is followed at once, a failure by backoff."""
        failures = 0
        while not self._stop.is_set():
            try:
                read = self.reader.round()
                failures = 0
            except Exception as exc:
                failures += 1
                logger.warning("Stream reader round failed (%d in a row): %r", failures, exc)
                logger.debug("Stream reader round failed", exc_info=True)
                read = 0
            wait = 0.0 if read >= self.reader.batch_limit else self._poll
            if failures:
                wait = min(self._poll * 2**failures, MAX_BACKOFF_SECONDS)
            self._stop.wait(wait)

    def stop(self) -> None:
        """End the thread after its round and give the lease up."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=10)
        if self.reader is not None:
            self.reader.close()

    close = stop


def stream_worker() -> StreamWorker:
    """This process's stream worker."""
    return runtime().stream_reader


def start_in_worker() -> None:
    """Start reading the stream in this web worker unless COUNTERS_STREAM_READER is `off`."""
    if conf.stream_reader() == "worker":
        stream_worker().ensure_started()


class StreamReaderMiddleware:
    """ASGI middleware: a web worker's requests and sockets keep its stream reader running (unless `off`).

    Checked at most once a second: a new store (the embedded DynamoDB Local moved) gets a new reader.
    """

    def __init__(self, app) -> None:
        self.app = app
        self._checked_at = float("-inf")

    async def __call__(self, scope, receive, send):
        now = time.monotonic()
        if now - self._checked_at >= 1.0:
            self._checked_at = now
            try:
                start_in_worker()
            except Exception:
                logger.exception("Could not start the stream reader")
        return await self.app(scope, receive, send)
