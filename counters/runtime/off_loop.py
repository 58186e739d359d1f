"""Leave the event loop the one way: blocking work (boto3, Redis, a lock) in a worker thread, awaited.

The loop serves every socket and beacon of the process, so nothing on it may block. Every place that
steps off it calls `in_thread`: the live push's reads, viewing-now's Redis calls and the site beacon's
writes. Django's request handler alone keeps asgiref's `sync_to_async` (web/asgi/asgi_handler.py):
its thread must know the loop for a view's `async_to_sync`.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, TypeVar

Result = TypeVar("Result")


def in_thread(
    func: Callable[..., Result], /, *args: Any, threads: Executor | None = None, **kwargs: Any
) -> asyncio.Future[Result]:
    """Run `func(*args, **kwargs)` in `threads` (None: the loop's default pool); its future, to await."""
    call = functools.partial(func, *args, **kwargs) if kwargs else functools.partial(func, *args)
    # In a copy of the caller's context, as asyncio.to_thread and asgiref's sync_to_async run it.
    return asyncio.get_running_loop().run_in_executor(threads, contextvars.copy_context().run, call)
