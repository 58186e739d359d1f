"""The few time bounds the docs promise, as the tests check them: one factor stretches them all.

A slow or crowded machine may set COUNTERS_TEST_TIME_SCALE (e.g. `2`) to double every bound that goes
through `scaled`; the default, 1, checks the documented figures as they stand.
"""

from __future__ import annotations

import os

SCALE_ENV = "COUNTERS_TEST_TIME_SCALE"


def time_scale() -> float:
    """The factor from the environment (1 unless set; never below 1)."""
    return max(float(os.environ.get(SCALE_ENV) or 1), 1.0)


def scaled(seconds: float) -> float:
    """A documented time bound on this machine."""
    return seconds * time_scale()
