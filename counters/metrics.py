"""This process's Prometheus instruments, made once per runtime (never at import), and the scrape's text.

Why a runtime part with a registry of its own rather than prometheus_client's global REGISTRY: the
global one refuses an instrument registered twice, so a fresh runtime per test (or after a reset)
could not make its own, and counts from one test would leak into the next. With several workers the
instruments' values live in files under PROMETHEUS_MULTIPROC_DIR (prometheus_client picks that mode
from the environment when it is first imported); a scrape of any worker then sums every worker's
files, so the registry object only matters for a single process.
"""

from __future__ import annotations

import atexit
import os
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
    multiprocess,
)

from counters.runtime import runtime

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = CONTENT_TYPE_LATEST

# A DynamoDB call takes milliseconds; the last buckets catch timeouts (1 s connect, 2 s read) and retries.
STORE_SECONDS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
# Views one write carries: 1 on a quiet page, more the busier a page is (group commit).
BATCH_SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# Frames go out at most every 100 ms; anything past a second is a fan-out falling behind.
PUSH_SECONDS = (0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
HTTP_SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


def multiprocess_dir() -> str | None:
    """The directory workers share their values through, if the environment names one."""
    return os.environ.get(MULTIPROC_ENV) or None


class Metrics:
    """Every instrument the app records to, in one registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry(auto_describe=True)
        into: dict[str, Any] = {"registry": self.registry}
        self.views_counted = Counter("counters_views_counted", "Page views the store acknowledged.", **into)
        self.bot_views_counted = Counter(
            "counters_bot_views_counted", "Bot views the store acknowledged (kept apart from views).", **into
        )
        self.votes = Counter(
            "counters_votes",
            "Answered votes and retractions; result: counted, unchanged (nothing moved) or replayed.",
            ["action", "result"],
            **into,
        )
        self._store_instruments(into)
        self._live_instruments(into)
        self._http_instruments(into)
        self._stream_instruments(into)

    def _store_instruments(self, into: dict[str, Any]) -> None:
        self.store_seconds = Histogram(
            "counters_store_request_seconds",
            "DynamoDB calls and their time, retries included, by operation.",
            ["operation"],
            buckets=STORE_SECONDS,
            **into,
        )
        self.store_errors = Counter(
            "counters_store_errors",
            "DynamoDB calls that failed, by operation and kind (AWS error code or exception class).",
            ["operation", "kind"],
            **into,
        )
        self.store_refusals = Counter(
            "counters_store_refusals",
            "DynamoDB calls a condition refused, as the app expects (unknown counter, visitor seen before).",
            ["operation"],
            **into,
        )
        self.write_batch = Histogram(
            "counters_write_batch_size",
            "Requests each counter write carried (group commit), by counter kind.",
            ["kind"],
            buckets=BATCH_SIZES,
            **into,
        )

    def _live_instruments(self, into: dict[str, Any]) -> None:
        # livesum: a worker's sockets leave the sum when it exits (see `for_runtime`).
        self.live_sockets = Gauge(
            "counters_live_sockets", "Open dashboard websockets.", multiprocess_mode="livesum", **into
        )
        self.live_frames = Counter(
            "counters_live_frames", "Frames handed to dashboard sockets, by kind.", ["kind"], **into
        )
        self.push_lag = Histogram(
            "counters_live_push_lag_seconds",
            "From a counter update reaching this worker's relay to its frame handed to every socket.",
            buckets=PUSH_SECONDS,
            **into,
        )
        self.relay_failures = Counter(
            "counters_live_relay_failures", "Channel layer outages the live relay met (one each).", **into
        )

    def _stream_instruments(self, into: dict[str, Any]) -> None:
        # max: only the worker holding the stream's lease reads it; the others report 0.
        self.stream_lag = Gauge(
            "counters_stream_lag_seconds",
            "Age of the oldest change of the table's stream not read yet (0 when caught up).",
            multiprocess_mode="max",
            **into,
        )
        self.stream_changes = Counter(
            "counters_stream_changes",
            "Changes read from the table's stream; result: pushed (another writer's) or own (the app's).",
            ["result"],
            **into,
        )

    def _http_instruments(self, into: dict[str, Any]) -> None:
        self.http_responses = Counter(
            "counters_http_responses", "HTTP answers by route name and status.", ["view", "status"], **into
        )
        self.http_seconds = Histogram(
            "counters_http_request_seconds",
            "Time from the first middleware to the answer, by route name.",
            ["view"],
            buckets=HTTP_SECONDS,
            **into,
        )
        self.unready = Counter(
            "counters_readiness_failures", "Readiness checks that failed, by part.", ["part"], **into
        )

    @classmethod
    def for_runtime(cls, runtime: object) -> Metrics:
        """The runtime's instruments; with several workers, also process metrics or the exit bookkeeping."""
        path = multiprocess_dir()
        if path is not None:
            # Each instrument opens its file there when made: a missing directory would fail every count.
            os.makedirs(path, exist_ok=True)
        made = cls()
        if path is None:
            # Only one process's own numbers make sense here: with several, each would show its own.
            ProcessCollector(registry=made.registry)
            PlatformCollector(registry=made.registry)
        else:
            # A worker that exits drops its open-socket count from the sum (daphne exits cleanly on SIGTERM).
            atexit.register(multiprocess.mark_process_dead, os.getpid(), path)
        return made

    def exposition(self) -> bytes:
        """The text a scrape reads: every worker's values with PROMETHEUS_MULTIPROC_DIR, else this one's."""
        path = multiprocess_dir()
        if path is None:
            return generate_latest(self.registry)
        merged = CollectorRegistry()
        multiprocess.MultiProcessCollector(merged, path=path)
        return generate_latest(merged)


def metrics() -> Metrics:
    """This process's instruments."""
    return runtime().metrics
