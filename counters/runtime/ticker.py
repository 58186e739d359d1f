"""A daemon thread that runs one job at a fixed interval, started on first use, never at import."""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Callable

Seconds = float | Callable[[], float]

logger = logging.getLogger(__name__)


class Ticker:
    """Run `job` every `interval` seconds in the background; optionally once more at interpreter exit."""

    def __init__(
        self, job: Callable[[], object], *, interval: Seconds, name: str, at_exit: bool = False
    ) -> None:
        self.job = job
        self.interval = interval
        self.name = name
        self.at_exit = at_exit
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._stopped = False

    def ensure_started(self) -> None:
        """Start the thread unless it runs already (cheap enough to call on every write)."""
        if self._thread is not None:
            return
        with self._lock:
            if self._thread is None and not self._stopped:
                if self.at_exit:
                    # A clean shutdown (SIGTERM to daphne, Ctrl-C, end of a management command) runs this.
                    atexit.register(self._run_job)
                self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
                self._thread.start()

    def wake(self) -> None:
        """Run the job as soon as the thread is free, without waiting for the interval to pass."""
        self._wake.set()

    def stop(self) -> None:
        """End the thread after its current round; the job is not run at exit any more."""
        with self._lock:
            self._stopped = True
            if self._thread is not None and self.at_exit:
                atexit.unregister(self._run_job)
        self._wake.set()

    def _loop(self) -> None:
        # Resolved once the thread starts, so a setting is read at first use, never at import.
        interval = self.interval() if callable(self.interval) else self.interval
        while not self._stopped:
            self._wake.wait(interval)
            self._wake.clear()
            if not self._stopped:
                self._run_job()

    def _run_job(self) -> None:
        try:
            self.job()
        except Exception:
            # The thread must outlive a failed round; the next one tries again.
            logger.exception("Background job %s failed", self.name)
