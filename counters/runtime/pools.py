"""Thread pools kept in the runtime, and an executor that runs work in the current runtime's pool."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from counters import conf
from counters.runtime import runtime

if TYPE_CHECKING:
    from counters.runtime import Runtime


class ThreadPool(ThreadPoolExecutor):
    """A pool of the runtime's: closed with it, its threads ending once the work in flight is done."""

    def close(self) -> None:
        """Take no more work; never waits (a request thread may be what closes the runtime)."""
        self.shutdown(wait=False)


def request_threads(process: Runtime) -> ThreadPool:
    """The pool Django's requests run in (counters/web/asgi/asgi_handler.py)."""
    return ThreadPool(conf.dynamodb_max_pool(), thread_name_prefix="request")


def beacon_threads(process: Runtime) -> ThreadPool:
    """The pool the site beacon's store calls run in (counters/web/asgi/site_beacon.py)."""
    return ThreadPool(conf.dynamodb_max_pool(), thread_name_prefix="beacon")


class RuntimePool(Executor):
    """Submit to a pool of this process's runtime, the one current at each call."""

    # Why at each call: the ASGI app is built once at start-up, and must serve whichever runtime is
    # current (a test's own, or the pool rebuilt after COUNTERS_DYNAMODB_MAX_POOL changed).
    def __init__(self, pick: Callable[[Runtime], Executor]) -> None:
        self._pick = pick

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return self._pick(runtime()).submit(fn, *args, **kwargs)
