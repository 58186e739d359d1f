"""The server's event loop, bound once: the only code that asks which loop it runs on.

Live objects (the broadcaster, the relay, viewing now, the read-back) run on the ASGI server's loop.
Request threads and background threads reach it through `run_soon` and `submit`; code on the loop
starts tasks with `start` and spaces repeated work with a named `Throttle`. `BoundLoopMiddleware`
binds the loop when the ASGI app first runs; a socket's first step follows the loop it runs on (each
test runs its own), and a new loop resets every throttle, whose tasks died with the old one.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from counters.runtime import runtime

logger = logging.getLogger(__name__)

# While a job fails, its wait doubles up to 2**6 times the normal one (6.4 s at 100 ms).
MAX_BACKOFF_DOUBLINGS = 6


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, if any."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class LiveLoop:
    """The loop live objects run on, and the few ways to reach it."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        # Held weakly: a part dropped from the runtime (a test's override) must not stay wired in.
        self._throttles: weakref.WeakSet[Throttle] = weakref.WeakSet()
        self._on_bind: list[weakref.WeakMethod] = []

    @classmethod
    def for_runtime(cls, runtime: object) -> LiveLoop:
        """A loop not bound yet (the runtime's part)."""
        return cls()

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The bound loop while it is open; async code running before any request adopts its own."""
        loop = self._loop
        if loop is None or loop.is_closed():
            running = running_loop()
            if running is not None:
                self.bind(running)
            return running
        return loop

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run live objects on `loop` from now on; a new loop restarts their throttles and tasks."""
        if loop is self._loop:
            return
        self._loop = loop
        for throttle in list(self._throttles):
            throttle.restart()
        self._on_bind = [method for method in self._on_bind if method() is not None]
        for method in list(self._on_bind):
            callback = method()
            if callback is not None:
                callback()

    def follow_running(self) -> None:
        """Bind the loop this coroutine runs on (a socket's first step)."""
        self.bind(asyncio.get_running_loop())

    def on_loop(self) -> bool:
        """Whether the caller runs on the bound loop."""
        loop = self._loop
        return loop is not None and running_loop() is loop

    def when_bound(self, callback: Callable[[], None]) -> None:
        """Call `callback` (a bound method, held weakly) on the loop each time a new loop is bound."""
        self._on_bind.append(weakref.WeakMethod(callback))

    def run_soon(self, function: Callable[..., object], *args: Any) -> bool:
        """Call `function(*args)` on the loop: now if the caller is on it; False if there is no loop."""
        loop = self.loop
        if loop is None:
            return False
        if running_loop() is loop:
            function(*args)
            return True
        try:
            loop.call_soon_threadsafe(function, *args)
        except RuntimeError:  # closed meanwhile
            return False
        return True

    def submit(self, coroutine: Callable[[], Coroutine[Any, Any, object]]) -> bool:
        """Run a coroutine as its own task on the loop, from any thread; False if there is no loop."""
        return self.run_soon(lambda: self.start(coroutine()))

    def start(self, coroutine: Coroutine[Any, Any, object]) -> asyncio.Task:
        """Start a task on the running loop in a fresh context: it outlives the request that started it."""
        return asyncio.get_running_loop().create_task(coroutine, context=contextvars.Context())

    def throttle(
        self,
        job: Callable[[], Awaitable[None]],
        *,
        interval: Callable[[], float],
        what: str,
        busy_share: float | None = None,
    ) -> Throttle:
        """A named throttle of `job` on this loop (see Throttle)."""
        throttle = Throttle(self, job, interval=interval, what=what, busy_share=busy_share)
        self._throttles.add(throttle)
        return throttle


class Throttle:
    """Used on the loop: run `job` at once after a quiet spell, then runs start at least an interval apart.

    The interval counts from the start of the last run, so throttles in series that run every interval
    (a read-back feeding a fan-out) fall into step instead of each adding its run's time to the wait.
    With `busy_share`, runs are also spaced so that the job takes at most that share of the time: a
    run that took 60 ms with a share of 0.25 waits at least 180 ms after it ends. Handing a frame to
    thousands of sockets then comes less often, and the rest of the loop keeps its share for counting.
    A job that raises is run again with backoff, counted from the end of the failed run.
    """

    def __init__(
        self,
        live: LiveLoop,
        job: Callable[[], Awaitable[None]],
        *,
        interval: Callable[[], float],
        what: str,
        busy_share: float | None = None,
    ) -> None:
        self.what = what
        self._live = live
        self._job = job
        self._interval = interval
        self._rest_per_busy = (1 - busy_share) / busy_share if busy_share else 0.0
        self.restart()

    def restart(self) -> None:
        """Forget the task and timing of a loop that is gone."""
        self._task: asyncio.Task | None = None
        self._due = False
        self._last_began = self._last_ran = float("-inf")
        self._rest = 0.0  # the least wait after the last run, for `busy_share`

    def poke(self) -> None:
        """Ask for a run (call on the loop); pokes before it starts share it."""
        self._due = True
        if self._task is None:
            self._task = self._live.start(self._run())

    async def _run(self) -> None:
        failures = 0
        try:
            while self._due:
                await self._wait_turn(failures)
                self._due = False
                failures = await self._run_once(failures)
        finally:
            if self._task is asyncio.current_task():
                self._task = None

    async def _wait_turn(self, failures: int) -> None:
        """Sleep until an interval has passed since the last run began and the busy rest since it ended
        (after a failure: the longer of the two, doubled per failure, since it ended)."""
        loop = asyncio.get_running_loop()
        if failures:
            due = self._last_ran + max(self._interval(), self._rest) * 2**failures
        else:
            due = max(self._last_began + self._interval(), self._last_ran + self._rest)
        wait = due - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)

    async def _run_once(self, failures: int) -> int:
        """Run the job; return the failures in a row since."""
        loop = asyncio.get_running_loop()
        began = loop.time()
        try:
            await self._job()
            failures = 0
        except Exception as exc:
            self._due = True  # run again, later
            if failures == 0:
                # One line per outage (a paused Redis fails every retry); the traceback only at debug level.
                logger.warning("%s failed; retrying with backoff: %r", self.what, exc)
                logger.debug("%s failed", self.what, exc_info=True)
            failures = min(failures + 1, MAX_BACKOFF_DOUBLINGS)
        # Both ends kept: the interval counts from the start (a run's own time does not add to it), the
        # busy rest from the end. A socket late in one hand-out may get the next frame sooner than the
        # interval by at most that hand-out's time, which the fan-out's busy share keeps small.
        self._last_began, self._last_ran = began, loop.time()
        self._rest = (self._last_ran - began) * self._rest_per_busy
        return failures


def live_loop() -> LiveLoop:
    """This process's live loop."""
    return runtime().live_loop


class BoundLoopMiddleware:
    """ASGI middleware binding the server's event loop to the live objects when the app first runs."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        live_loop().bind(asyncio.get_running_loop())
        return await self.app(scope, receive, send)
