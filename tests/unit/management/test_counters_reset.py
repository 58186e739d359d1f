"""`manage.py counters_reset`: exit 0 on success, 3 on a stale version, 4 for an unknown counter."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.processes import PROJECT_DIR
from tests.support.site import site_env_for


def run_reset(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "counters_reset", *args],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.processes
def test_exit_codes_and_messages(demo_store, dynamodb_local, tmp_path):
    env = site_env_for(demo_store, dynamodb_local, tmp_path)
    for _ in range(5):
        demo_store.increment("welcome", kind="views")

    stale = run_reset(env, "welcome", "--expect-version", "4", "--reason", "x")
    assert stale.returncode == 3, stale.stderr
    assert "Not reset: welcome changed: it is now 5 at version 5." in stale.stderr
    assert demo_store.get("welcome").value == 5

    unknown = run_reset(env, "ghost", "--expect-version", "0")
    assert unknown.returncode == 4 and "There is no counter named 'ghost'." in unknown.stderr

    invalid = run_reset(env, "Not A Name", "--expect-version", "0")
    assert invalid.returncode == 2 and "counter name" in invalid.stderr

    done = run_reset(env, "welcome", "--expect-version", "5", "--reason", "new launch", "--actor", "ops")
    assert done.returncode == 0, done.stderr
    assert "welcome was reset to 0 from version 5; it is now at version 6." in done.stdout
    assert (demo_store.get("welcome").value, demo_store.get("welcome").version) == (0, 6)
    [record] = demo_store.reset_history("welcome")
    assert (record.actor, record.reason, record.old_value, record.old_version) == ("ops", "new launch", 5, 5)
