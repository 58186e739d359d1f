"""Tests that take turns: `make test` runs each group's tests one after another on one worker.

Under `--dist loadgroup` (scripts/dev.sh) the rest of the suite spreads over the workers test by test;
a browser module stays on one worker with its Chromium and its site.
"""

from __future__ import annotations

import pytest

# Tests that start their own DynamoDB Local, kill it and time its return (the supervisor's promise):
# two Java start-ups at once on two cores would miss a deadline that one alone keeps.
RESTARTS_DYNAMODB = pytest.mark.xdist_group("restarts-dynamodb")

# Tests that load the machine on purpose and check what the load left (bench runs, the soak, workers
# killed under load behind nginx, a thousand pages): one at a time, so none is another's background
# load. `make test` runs them after the parallel pass, alone (they are marked `alone` at collection).
LOADS_THE_MACHINE_GROUP = "loads-the-machine"
LOADS_THE_MACHINE = pytest.mark.xdist_group(LOADS_THE_MACHINE_GROUP)


def mark_alone(items: list[pytest.Item]) -> None:
    """Mark the tests that load the machine `alone`, so `-m alone` and `-m "not alone"` select them."""
    for item in items:
        groups = {mark.args[0] for mark in item.iter_markers("xdist_group") if mark.args}
        if LOADS_THE_MACHINE_GROUP in groups:
            item.add_marker(pytest.mark.alone)


def keep_browser_modules_together(items: list[pytest.Item]) -> None:
    """Put each browser module's tests in a group of their own, so its Chromium and site start once."""
    for item in items:
        if item.get_closest_marker("browser") and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


def name_groups_in_ids(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a loadgroup worker, end each grouped test's id in `@<group>`, which is how the scheduler groups.

    pytest-xdist 3.8 writes that suffix where pytest 9.2 no longer reads a node's id (pytest-xdist
    issue 1386): without this every group would silently spread over the workers.
    """
    if not getattr(config.option, "loadgroup", False):
        return
    from _pytest.nodeid import NodeId

    for item in items:
        names = {mark.args[0] if mark.args else mark.kwargs.get("name", "default") for mark in
                 item.iter_markers("xdist_group")}  # fmt: skip
        suffix = "@" + "_".join(sorted(str(name) for name in names))
        if names and hasattr(item, "_id") and not item.nodeid.endswith(suffix):
            item._id = NodeId.parse(item.nodeid + suffix)
