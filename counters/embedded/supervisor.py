"""Keep the embedded DynamoDB Local running: start it again when it dies, and follow one started elsewhere.

One supervisor per data dir and process, a watchdog thread that looks once a second (and at once
when a store call could not connect) at the data dir's record, server.json:
- the recorded instance is alive: nothing to do, unless it is not the one this process talks to (an
  operator ran `manage.py counters_local start`, or another process restarted it on another port);
  then `on_moved` makes the process build its clients for it (and `on_lost` when it died);
- the recorded instance died (SIGKILL, out of memory): start it again on the same data dir, on the
  same port where it is free. The launcher's lock makes that happen once per data dir however many
  processes notice; the others find the new instance in the record;
- it was stopped on purpose (`counters_local stop`): leave it stopped; requests answer 503 until
  someone starts it, and then it is followed as above.
Nothing here is on a request's path: requests only wake the watchdog.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from counters.embedded import dynamodb_local
from counters.embedded.dynamodb_local import DynamoLocalUnavailable, LocalDynamo
from counters.runtime.ticker import Ticker

logger = logging.getLogger(__name__)

WATCH_SECONDS = 1.0


class Supervisor:
    """Watch one data dir's DynamoDB Local for this process."""

    def __init__(
        self,
        *,
        data_dir: Path,
        base_dir: Path,
        on_moved: Callable[[], None],
        on_lost: Callable[[], None],
        interval: float = WATCH_SECONDS,
    ) -> None:
        self.data_dir = data_dir
        self.base_dir = base_dir
        self.on_moved = on_moved
        self.on_lost = on_lost
        self.current: LocalDynamo | None = None
        self.restarts = 0
        self._seen_pid: int | None = None  # the instance alive at the last round (the watchdog's own)
        self._lock = threading.Lock()
        self._ticker = Ticker(self.check, interval=interval, name="counters-dynamodb-local-watchdog")

    def watch(self, local: LocalDynamo) -> None:
        """Follow `local`, the instance this process's clients now talk to."""
        with self._lock:
            self.current = local
        if self._seen_pid is None:
            self._seen_pid = local.pid
        self._ticker.ensure_started()

    def wake(self) -> None:
        """Look now rather than at the next round (a store call could not connect)."""
        self._ticker.wake()

    def check(self) -> LocalDynamo | None:
        """Restart a dead instance or follow a new one; return the instance running now, if any."""
        found = dynamodb_local.running(self.data_dir)
        if self._seen_pid is not None and (found is None or found.pid != self._seen_pid):
            # Open dashboards must not go on showing totals as live while nothing can be counted.
            self.on_lost()
        self._seen_pid = found.pid if found is not None else None
        if found is None:
            if dynamodb_local.stopped_on_purpose(self.data_dir):
                return None
            found = self._restart()
            if found is None:
                return None
            self._seen_pid = found.pid
        with self._lock:
            moved = self.current is not None and found.endpoint_url != self.current.endpoint_url
            self.current = found
        if moved:
            logger.warning("DynamoDB Local now answers at %s; connecting there", found.endpoint_url)
            self.on_moved()
        return found

    def _restart(self) -> LocalDynamo | None:
        """Start the data dir's instance again (or find the one another process just started)."""
        logger.warning("DynamoDB Local of %s is gone; starting it again", self.data_dir)
        started = time.monotonic()
        try:
            found = dynamodb_local.restart(self.data_dir, base_dir=self.base_dir)
        except DynamoLocalUnavailable as exc:
            logger.error("DynamoDB Local did not start again; trying again shortly: %s", exc)
            return None
        if found is None:
            logger.warning("DynamoDB Local of %s was stopped meanwhile; leaving it stopped", self.data_dir)
            return None
        self.restarts += 1
        logger.warning(
            "DynamoDB Local is back at %s after %.1f s", found.endpoint_url, time.monotonic() - started
        )
        return found


_supervisors: dict[Path, Supervisor] = {}
_registry_lock = threading.Lock()


def supervise(
    data_dir: Path, *, base_dir: Path, on_moved: Callable[[], None], on_lost: Callable[[], None]
) -> Supervisor:
    """Start or reuse the data dir's instance and this process's watchdog over it."""
    key = Path(data_dir).resolve()
    local = dynamodb_local.ensure_running(key, base_dir=base_dir)
    with _registry_lock:
        supervisor = _supervisors.get(key)
        if supervisor is None:
            supervisor = _supervisors[key] = Supervisor(
                data_dir=key, base_dir=base_dir, on_moved=on_moved, on_lost=on_lost
            )
        else:
            # The newest store of this data dir is the one to tell (a test's runtime replaced the last).
            supervisor.on_moved, supervisor.on_lost = on_moved, on_lost
    supervisor.watch(local)
    return supervisor
