"""One factor for the few documented time bounds, so a slow or shared machine stretches them all alike."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

FACTOR_ENV = "COUNTERS_TEST_TIME_FACTOR"


def factor() -> float:
    """The factor from `COUNTERS_TEST_TIME_FACTOR` (default 1; never below 1)."""
    raw = os.environ.get(FACTOR_ENV, "").strip()
    return max(1.0, float(raw)) if raw else 1.0


def scaled(seconds: float) -> float:
    """`seconds` stretched by the machine's factor."""
    return seconds * factor()


def wait_until(condition: Callable[[], object], what: str, *, timeout: float, poll: float = 0.02) -> None:
    """Poll `condition` until it is true; fail naming `what` after `timeout` (scaled) seconds."""
    deadline = time.monotonic() + scaled(timeout)
    while not condition():
        assert time.monotonic() < deadline, f"gave up after {scaled(timeout):.1f}s waiting for {what}"
        time.sleep(poll)


async def until(condition: Callable[[], object], what: str, *, timeout: float, poll: float = 0.01) -> None:
    """On the event loop: yield until `condition` is true; fail naming `what` after `timeout` (scaled) s."""
    deadline = time.monotonic() + scaled(timeout)
    while not condition():
        assert time.monotonic() < deadline, f"gave up after {scaled(timeout):.1f}s waiting for {what}"
        await asyncio.sleep(poll)
