"""The store's clock: UTC times as ISO 8601 with milliseconds, the format of `updated_at`."""

from __future__ import annotations

from datetime import UTC, datetime


def now_iso() -> str:
    """Current UTC time as ISO 8601 with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")
