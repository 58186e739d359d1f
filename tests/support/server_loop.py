"""An event loop in its own thread, bound to the live push as a server's loop is (daphne, uvicorn)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from counters.live.loop import live_loop


async def _cancel_others() -> None:
    for task in asyncio.all_tasks():
        if task is not asyncio.current_task():
            task.cancel()


@contextmanager
def server_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """Run a loop in a thread and bind the live push to it; stop and close it afterwards."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="server-loop", daemon=True)
    thread.start()
    live_loop().bind(loop)
    try:
        yield loop
    finally:
        asyncio.run_coroutine_threadsafe(_cancel_others(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()  # a closed loop is no server loop: the live push goes back to sending unbound
