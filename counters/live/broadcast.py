"""Hand acknowledged counter states to the live push; the request path never waits on it.

Each process's runtime has one `Broadcaster`. `publish()` may be called from any thread: it only
hands the states to the live loop (loop.py). There a `Coalescer` merges them into the newest version
per counter and sends that as one group message, then waits COUNTERS_BROADCAST_INTERVAL (default
0.1 s) before the next one: a quiet counter's first change goes out at once, a busy one at most ten
times a second, always with its latest total. A send the layer refuses is retried with backoff.
States already paced one send per interval (the votes' read-back) go out at once with `send_now`.

Without a loop (management commands, Django's test client) nothing in this process has a websocket
open, so the in-memory layer is skipped; a layer that crosses processes (channels_redis) gets the
states at once through `async_to_sync`, uncoalesced.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

from counters import conf
from counters.domain.values import CounterState
from counters.live.coalesce import Coalescer, Pending, Update, as_counters, merge
from counters.live.loop import LiveLoop
from counters.runtime import runtime

GROUP_NAME = "counters"
UPDATE_EVENT = "counter.update"

logger = logging.getLogger(__name__)


def update_message(pending: Pending) -> dict:
    """The group message carrying the latest state of every changed counter."""
    return {"type": UPDATE_EVENT, "counters": as_counters(pending)}


def updates_message(updates: list[Update]) -> dict:
    """The group message of some updates, the newest state per counter."""
    pending: Pending = {}
    merge(pending, updates)
    return update_message(pending)


async def group_send(message: dict) -> None:
    """Send one message to every process's relay."""
    await get_channel_layer().group_send(GROUP_NAME, message)


def send_without_loop(message: dict) -> None:
    """Without a live loop: reach other processes directly; an in-memory layer has no one here."""
    layer = get_channel_layer()
    if layer is not None and not isinstance(layer, InMemoryChannelLayer):
        async_to_sync(layer.group_send)(GROUP_NAME, message)


class Broadcaster:
    """Per-process coalescer: at most one group message per interval with the newest totals."""

    def __init__(self, live: LiveLoop, *, send: Callable[[dict], Awaitable[None]] = group_send) -> None:
        self._live = live
        self._group_send = send
        self._coalescer = Coalescer(live, self._send, interval=conf.broadcast_interval, what="Live push")

    def publish(self, states: Iterable[CounterState]) -> None:
        """Queue states for the next group message; never blocks, never raises."""
        try:
            self.publish_updates([(state.name, state.value, state.version) for state in states])
        except Exception:
            logger.exception("Could not queue counter updates for the live push")

    def publish_updates(self, updates: list[Update]) -> None:
        """Queue (name, value, version[, stream sequence]) updates, as `publish` does its states."""
        try:
            if updates and not self._live.run_soon(self._coalescer.add, updates):
                self._send_unbound(updates)
        except Exception:
            logger.exception("Could not queue counter updates for the live push")

    async def send_now(self, states: list[CounterState]) -> None:
        """Send states to every process's relay at once, not coalesced (on the loop; raises if it fails)."""
        await self._group_send(updates_message([(s.name, s.value, s.version) for s in states]))

    def announce(self, message: dict) -> None:
        """Send one group message as it is, not coalesced, from sync or async code; never blocks or raises."""
        try:
            if not self._live.submit(lambda: self._send_logged(message)):
                send_without_loop(message)
        except Exception:
            logger.exception("Could not send %s to the live push", message.get("type"))

    async def _send(self, pending: Pending) -> None:
        await self._group_send(update_message(pending))

    def _send_unbound(self, updates: list[Update]) -> None:
        send_without_loop(updates_message(updates))

    async def _send_logged(self, message: dict) -> None:
        try:
            await self._group_send(message)
        except Exception:
            logger.exception("Could not send %s to the live push", message.get("type"))


def broadcaster() -> Broadcaster:
    """This process's broadcaster."""
    return runtime().broadcaster


def publish(states: Iterable[CounterState]) -> None:
    """Queue new totals for every open dashboard (from sync or async code; never blocks or raises)."""
    broadcaster().publish(states)


def announce(message: dict) -> None:
    """Send one group message to every process's relay as it is (never blocks or raises)."""
    broadcaster().announce(message)


def __getattr__(name: str):
    """The former home of BoundLoopMiddleware (counters.live.loop), for projects that import it from here."""
    if name == "BroadcastLoopMiddleware":
        from counters.live.loop import BoundLoopMiddleware

        return BoundLoopMiddleware
    raise AttributeError(name)
