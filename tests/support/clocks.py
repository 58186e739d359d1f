"""Clocks a test moves on instead of waiting: one in this process, one a site it started reads."""

from __future__ import annotations

import os
from pathlib import Path
from zoneinfo import ZoneInfo

from counters.domain.clock import FileMovedClock, MovedClock

UTC_ZONE = ZoneInfo("UTC")


class HeldClock(MovedClock):
    """This process's clock (give it to the runtime as "clock"): the wall clock until a test moves it on."""

    def __init__(self, zone: ZoneInfo = UTC_ZONE) -> None:
        super().__init__(zone)
        self.ahead = 0.0

    def offset(self) -> float:
        """Seconds moved on so far."""
        return self.ahead

    def advance(self, seconds: float) -> None:
        """Move the clock on; a sleeper on it (a poll's closing timer) wakes if its time has come."""
        self.ahead += seconds


class SiteClock(FileMovedClock):
    """A started site's clock: `env()` points the site at the file `advance` writes its offset to."""

    def __init__(self, path: Path, zone: ZoneInfo = UTC_ZONE) -> None:
        super().__init__(zone, path)

    def env(self) -> dict[str, str]:
        """The site process's environment entry that makes it read this clock."""
        return {"COUNTERS_TEST_CLOCK_FILE": str(self.path)}

    def advance(self, seconds: float) -> None:
        """Move the site's clock (and this reading of it) on by `seconds`, the file replaced whole."""
        written = self.path.with_suffix(".next")
        written.write_text(repr(self.offset() + seconds))
        os.replace(written, self.path)
