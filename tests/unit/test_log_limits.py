"""A client cannot flood the log: one line per kind of refusal a minute, with a count; no traceback for
a client's fault; every other line as it was."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
from django.test import Client

from counters.log_limits import REFUSALS, RefusalLimit, refusals_logger

TIMES = 50


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def record(name: str, msg: str, *args, level: int = logging.INFO, exc: BaseException | None = None, **extra):
    """A record as `logger.log(level, msg, *args, exc_info=exc, extra=extra)` makes it."""
    exc_info = (type(exc), exc, exc.__traceback__) if exc is not None else None
    made = logging.LogRecord(name, level, __file__, 1, msg, args, exc_info)
    made.__dict__.update(extra)
    return made


def answered(status: int, msg: str, *args, exc: BaseException | None = None) -> logging.LogRecord:
    """A record of `django.request` for a response, as Django's log_response makes it."""
    level = logging.ERROR if status >= 500 else logging.WARNING
    return record("django.request", msg, *args, level=level, exc=exc, status_code=status)


def formatted(limit: RefusalLimit, records: list[logging.LogRecord]) -> list[str]:
    """The lines a handler with this filter writes for `records`."""
    handler = logging.StreamHandler(io.StringIO())
    handler.addFilter(limit)
    for each in records:
        handler.handle(each)
    return handler.stream.getvalue().splitlines()


def test_one_line_per_kind_a_minute_then_one_saying_how_many_were_held():
    clock = Clock()
    limit = RefusalLimit(clock=clock)
    burst = [record(REFUSALS, "Refused a live socket: %s", f"reason {n}") for n in range(TIMES)]
    assert formatted(limit, burst) == ["Refused a live socket: reason 0"]
    clock.now += 59
    assert formatted(limit, [record(REFUSALS, "Refused a live socket: %s", "later")]) == []
    clock.now += 1
    assert formatted(limit, [record(REFUSALS, "Refused a live socket: %s", "again")]) == [
        f"Refused a live socket: again ({TIMES} more like this not logged in the last 60 s)"
    ]


def test_kinds_are_limited_apart_and_other_lines_not_at_all():
    limit = RefusalLimit(clock=Clock())
    records = [
        *(answered(404, "Not Found: %s", f"/x{n}") for n in range(TIMES)),
        *(answered(405, "Method Not Allowed (%s): %s", "POST", "/") for _ in range(TIMES)),
        *(record("counters.background.history_writer", "History lost %s view(s)", n) for n in range(3)),
    ]
    lines = formatted(limit, records)
    assert lines == [
        "Not Found: /x0",
        "Method Not Allowed (POST): /",
        "History lost 0 view(s)",
        "History lost 1 view(s)",
        "History lost 2 view(s)",
    ]


def test_the_site_failing_to_reach_its_store_keeps_every_line_and_traceback():
    limit = RefusalLimit(clock=Clock())
    refused = [
        record("counters.live", "Redis down", level=40, exc=ConnectionRefusedError(111, "x")) for _ in "ab"
    ]
    assert formatted(limit, refused) == ["Redis down", "ConnectionRefusedError: [Errno 111] x"] * 2


def test_a_server_error_is_never_held_back_nor_stripped():
    limit = RefusalLimit(clock=Clock())
    errors = [answered(500, "Internal Server Error: %s", "/", exc=KeyError(key)) for key in "xy"]
    lines = formatted(limit, errors)
    assert lines == ["Internal Server Error: /", "KeyError: 'x'", "Internal Server Error: /", "KeyError: 'y'"]


def test_a_dropped_connection_logs_one_line_without_a_traceback():
    limit = RefusalLimit(clock=Clock())

    def dropped() -> logging.LogRecord:
        try:
            raise ConnectionResetError(104, "Connection reset by peer")
        except ConnectionResetError as exc:
            return record(
                "daphne.server", "Exception inside application: %s", exc, level=logging.ERROR, exc=exc
            )

    lines = formatted(limit, [dropped() for _ in range(TIMES)])
    assert lines == ["Exception inside application: [Errno 104] Connection reset by peer"]


@pytest.fixture
def site_log() -> Iterator[io.StringIO]:
    """What the site's own console handler (LOGGING in counters_site/settings.py) writes from now on, its
    filter fresh (so earlier tests' refusals in this process hold nothing back)."""
    handler = next(
        h for h in logging.getLogger().handlers if any(isinstance(f, RefusalLimit) for f in h.filters)
    )
    installed = next(f for f in handler.filters if isinstance(f, RefusalLimit))
    fresh, stream = RefusalLimit(), io.StringIO()
    handler.removeFilter(installed)
    handler.addFilter(fresh)
    previous = handler.setStream(stream)
    try:
        yield stream
    finally:
        handler.setStream(previous)
        handler.removeFilter(fresh)
        handler.addFilter(installed)


@pytest.mark.django_db
def test_bad_host_headers_and_csrf_refusals_log_one_line_each_through_the_sites_logging(
    site_log, memory_store
):
    client = Client(enforce_csrf_checks=True)
    for n in range(TIMES):
        assert client.get("/api/counters", HTTP_HOST=f"evil-{n}.example").status_code == 400
        assert client.post("/api/views/docs").status_code == 403
    lines = site_log.getvalue().splitlines()
    assert [line for line in lines if "django.security.DisallowedHost" in line] == [
        next(line for line in lines if "Invalid HTTP_HOST header: 'evil-0.example'" in line)
    ]
    assert len([line for line in lines if "Forbidden (CSRF" in line]) == 1
    assert "Traceback" not in site_log.getvalue()


def test_the_apps_refusals_are_limited_whatever_the_projects_logging(caplog):
    logger = refusals_logger()
    assert refusals_logger() is logger and sum(isinstance(f, RefusalLimit) for f in logger.filters) == 1
    with caplog.at_level(logging.INFO, logger=REFUSALS):
        for n in range(TIMES):
            logger.info("Refused a socket of this test: %s", f"reason {n}")
    assert [r.getMessage() for r in caplog.records if r.name == REFUSALS] == [
        "Refused a socket of this test: reason 0"
    ]
