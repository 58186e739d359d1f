"""The clock: the time now (a runtime part, so a test can hold it still), and `updated_at`'s format."""

from __future__ import annotations

import time
from datetime import UTC, datetime


class Clock:
    """The time now, in seconds since the epoch."""

    @classmethod
    def for_runtime(cls, process: object = None) -> Clock:
        """The wall clock."""
        return cls()

    def time(self) -> float:
        """Seconds since the epoch, now."""
        return time.time()


def now_iso() -> str:
    """Current UTC time as ISO 8601 with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")
