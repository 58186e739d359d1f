"""Tests that take turns: `make test` runs each group's tests one after another on one worker.

Under `--dist loadgroup` (scripts/dev.sh) the rest of the suite spreads over the workers test by test;
a browser module stays on one worker with its Chromium and its site (tests/conftest.py).
"""

from __future__ import annotations

import pytest

# Tests that start their own DynamoDB Local, kill it and time its return (the supervisor's promise):
# two Java start-ups at once on two cores would miss a deadline that one alone keeps.
RESTARTS_DYNAMODB = pytest.mark.xdist_group("restarts-dynamodb")

# Tests that load the machine on purpose and check what the load left (bench runs, the soak, workers
# killed under load behind nginx): one at a time, so none is another's background load.
LOADS_THE_MACHINE = pytest.mark.xdist_group("loads-the-machine")
