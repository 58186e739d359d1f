"""Hand acknowledged counter states to the live push; the request path never waits on it.

Each process has one `Broadcaster`. `publish()` may be called from any thread: it only hands the
states to the server's event loop (bound by `BroadcastLoopMiddleware` when the ASGI app first runs)
with `call_soon_threadsafe`. On the loop a `Coalescer` merges them into the newest version per
counter and sends that as one group message, then waits COUNTERS_BROADCAST_INTERVAL (default 0.1 s)
before the next one: a quiet counter's first change goes out at once, a busy one at most ten times a
second, always with its latest total. A send the layer refuses is retried with backoff.

Without a bound loop (management commands, Django's test client) nothing in this process has a
websocket open, so the in-memory layer is skipped; a layer that crosses processes (channels_redis)
gets the states at once through `async_to_sync`, uncoalesced.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Iterable

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

from counters import conf
from counters.domain.values import CounterState
from counters.live.coalesce import Coalescer, Pending, Update, as_counters, merge

GROUP_NAME = "counters"
UPDATE_EVENT = "counter.update"

logger = logging.getLogger(__name__)


def update_message(pending: Pending) -> dict:
    """The group message carrying the latest state of every changed counter."""
    return {"type": UPDATE_EVENT, "counters": as_counters(pending)}


async def group_send(pending: Pending) -> None:
    """Send merged states to every process's relay."""
    await get_channel_layer().group_send(GROUP_NAME, update_message(pending))


class Broadcaster:
    """Per-process coalescer: at most one group message per interval with the newest totals."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        # Used only on the bound loop, so no lock is needed.
        self._coalescer: Coalescer | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Send from `loop` from now on (daphne runs one loop; tests start a new one per test)."""
        if loop is self._loop:
            return
        self._loop = loop
        self._coalescer = Coalescer(group_send, interval=conf.broadcast_interval, what="Live push")

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The server's event loop, once bound."""
        return self._loop

    def publish(self, states: Iterable[CounterState]) -> None:
        """Queue states for the next group message; never blocks, never raises."""
        try:
            updates = [(state.name, state.value, state.version) for state in states]
            if not updates:
                return
            loop, running = self._loop, _running_loop()
            if (loop is None or loop.is_closed()) and running is not None:
                self.bind(running)  # async code publishing before any request: its loop serves
                loop = running
            if loop is None or loop.is_closed():
                self._send_unbound(updates)
            elif running is loop:
                self._coalescer.add(updates)
            else:
                loop.call_soon_threadsafe(self._coalescer.add, updates)
        except Exception:
            logger.exception("Could not queue counter updates for the live push")

    def _send_unbound(self, updates: list[Update]) -> None:
        """Without a server loop: reach other processes directly; an in-memory layer has no one here."""
        layer = get_channel_layer()
        if layer is None or isinstance(layer, InMemoryChannelLayer):
            return
        pending: Pending = {}
        merge(pending, updates)
        async_to_sync(layer.group_send)(GROUP_NAME, update_message(pending))


def announce(message: dict) -> None:
    """Send one group message as it is, not coalesced, from sync or async code; never blocks or raises."""
    try:
        loop, running = broadcaster.loop, _running_loop()
        if loop is None or loop.is_closed():
            loop = running
        if loop is None:
            layer = get_channel_layer()
            # Without a server loop an in-memory layer has no one in this process to tell.
            if layer is not None and not isinstance(layer, InMemoryChannelLayer):
                async_to_sync(layer.group_send)(GROUP_NAME, message)
        elif loop is running:
            loop.create_task(_send_logged(message), context=contextvars.Context())
        else:
            asyncio.run_coroutine_threadsafe(_send_logged(message), loop)
    except Exception:
        logger.exception("Could not send %s to the live push", message.get("type"))


async def _send_logged(message: dict) -> None:
    try:
        await get_channel_layer().group_send(GROUP_NAME, message)
    except Exception:
        logger.exception("Could not send %s to the live push", message.get("type"))


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, if any."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


broadcaster = Broadcaster()


def publish(states: Iterable[CounterState]) -> None:
    """Queue new totals for every open dashboard (from sync or async code; never blocks or raises)."""
    broadcaster.publish(states)


class BroadcastLoopMiddleware:
    """ASGI middleware binding the server's event loop to the broadcaster when the app first runs."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        broadcaster.bind(asyncio.get_running_loop())
        return await self.app(scope, receive, send)
