"""Log lines a client cannot multiply: one line per kind of refusal per minute per process, and no
traceback for what is the client's fault (a bad Host header, a connection it dropped).

`RefusalLimit` is a logging filter. Installed on a handler (the site's LOGGING puts it on the console
handler every logger reaches) it limits only the records it recognises as refusals and passes every
other record as it is; the app's own refusals go to the `counters.refusals` logger, limited in code, so
they stay limited in any project. The line that ends a quiet spell says how many of its kind were held.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from django.core.exceptions import RequestAborted, SuspiciousOperation

REFUSALS = "counters.refusals"
INTERVAL_SECONDS = 60.0
# Kinds are remembered until their minute is over; past this many, the ones whose minute is over go.
MAX_KINDS = 256
# A request Django found suspicious, or a connection the client closed or reset mid-way (not a refused
# connection: that is the site failing to reach its store or Redis, whose traceback is kept).
CLIENT_FAULTS: tuple[type[BaseException], ...] = (
    SuspiciousOperation,
    RequestAborted,
    ConnectionResetError,
    ConnectionAbortedError,
    BrokenPipeError,
)


def client_fault(record: logging.LogRecord) -> bool:
    """Whether the record's exception is the client's doing (a refused request, a dropped connection)."""
    exc = record.exc_info[1] if record.exc_info else None
    return isinstance(exc, CLIENT_FAULTS) or record.name.startswith("django.security.")


def refusal_kind(record: logging.LogRecord) -> tuple[str, str] | None:
    """The kind a refusal's record is counted under, or None for a record that is not a refusal."""
    if getattr(record, "counters_limited", False):
        return None  # limited where it was logged already
    if record.name.startswith("django.security."):
        # Their messages quote what the client sent (the Host header), so the logger is the kind.
        return record.name, ""
    if client_fault(record):
        return record.name, type(record.exc_info[1]).__name__
    status = getattr(record, "status_code", 500)
    if record.name == "django.request" and status < 500:
        # Django says every answer over 400 in one sentence ("%s: %s"); its status tells the kinds apart.
        return record.name, f"{status} {record.msg}"
    # uvicorn says each websocket's handshake, acceptance, refusal and close at INFO, access log or not.
    if record.name == REFUSALS or (record.name == "uvicorn.error" and record.levelno <= logging.INFO):
        return record.name, str(record.msg)
    return None


class RefusalLimit(logging.Filter):
    """Pass one record per kind of refusal per interval; strip the traceback of a client's fault."""

    def __init__(
        self, interval: float = INTERVAL_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.interval = interval
        self.clock = clock
        self._lock = threading.Lock()
        # kind -> [when its line was logged, how many of it were held back since]
        self._kinds: dict[tuple[str, str], list] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        kind = refusal_kind(record)
        if kind is None:
            return True
        held = self._held_back(kind)
        if held is None:
            return False
        message = record.getMessage()
        if client_fault(record):
            # The client's doing, not a fault to debug: the exception's name says enough.
            exc = record.exc_info[1] if record.exc_info else None
            if exc is not None and str(exc) not in message:
                message = f"{message} ({type(exc).__name__}: {exc})"
            record.exc_info, record.exc_text, record.stack_info = None, None, None
        if held:
            message = f"{message} ({held} more like this not logged in the last {self.interval:g} s)"
        record.msg, record.args = message, None
        record.counters_limited = True
        return True

    def _held_back(self, kind: tuple[str, str]) -> int | None:
        """How many of `kind` were held since its last line, if it may log now; None if it may not."""
        now = self.clock()
        with self._lock:
            seen = self._kinds.get(kind)
            if seen is not None and now - seen[0] < self.interval:
                seen[1] += 1
                return None
            if len(self._kinds) >= MAX_KINDS:
                self._kinds = {k: v for k, v in self._kinds.items() if now - v[0] < self.interval}
            self._kinds[kind] = [now, 0]
            return seen[1] if seen is not None else 0


def refusals_logger() -> logging.Logger:
    """The app's logger of refusals, limited in this process whatever the project's LOGGING says."""
    logger = logging.getLogger(REFUSALS)
    if not any(isinstance(existing, RefusalLimit) for existing in logger.filters):
        logger.addFilter(RefusalLimit())
    return logger
