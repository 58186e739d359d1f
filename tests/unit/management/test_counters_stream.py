"""`manage.py counters_stream` holds the stream's lease while it runs, and gives it up when stopped."""

from __future__ import annotations

import signal
import subprocess
import sys

from tests.support.processes import PROJECT_DIR
from tests.support.site import REDIS_URL, site_env_for
from tests.support.timing import wait_until


def test_the_command_takes_the_lease_and_gives_it_up(store, dynamodb_local, tmp_path, redis_prefix):
    env = site_env_for(
        store, dynamodb_local, tmp_path, REDIS_URL=REDIS_URL, COUNTERS_REDIS_PREFIX=redis_prefix
    )
    process = subprocess.Popen(
        [sys.executable, "manage.py", "counters_stream"],
        cwd=PROJECT_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until(
            lambda: (store.stream_status() or {}).get("live"), "the command's lease", timeout=30, poll=0.2
        )
        assert store.stream_status()["owner"].split(":")[1] == str(process.pid)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert "the lease is given up" in out
    assert store.stream_status() is None
