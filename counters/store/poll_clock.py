"""The clock a store decides a poll's closing by: the runtime's, so a test that moves it moves the stores."""

from __future__ import annotations

from counters.domain.clock import Clock
from counters.runtime import runtime


def poll_clock() -> Clock:
    """This process's clock (the wall clock unless a test gave or moved another)."""
    return runtime().clock
