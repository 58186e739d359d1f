"""Deliver group updates to this process's open dashboards through one layer subscription.

Each dashboard socket joining the group itself would cost the layer one message per socket per
update (and InMemoryChannelLayer rescans every channel on each receive, quadratic in sockets); with
one relay per process the layer carries one message per process, and the relay merges what every
worker sends and hands the same text, serialised once, to every local socket at most once per
interval.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
from collections.abc import Callable
from typing import Protocol

from channels.layers import get_channel_layer
from django.dispatch import receiver

from counters import conf
from counters.live.broadcast import GROUP_NAME, UPDATE_EVENT
from counters.live.catalog import CATALOG_EVENT, CatalogRelay
from counters.live.coalesce import Coalescer, Pending, as_counters
from counters.live.wire import OutgoingText
from counters.signals import store_lost

logger = logging.getLogger(__name__)

# The share of this process's time that handing frames to its sockets may take: with thousands of
# sockets, frames come less often rather than crowding out the requests that count (coalesce.py).
FANOUT_SHARE = 0.25
# Layers forget group members after a day (group_expiry); the relay renews its membership well before.
RENEW_SECONDS = 600.0
# Closed when the relay loses the layer: clients reconnect and resync from a snapshot. 4000 + the
# standard 1012, since daphne (autobahn) lets a server close only with 1000 or 3000-4999.
CLOSE_RELAY_LOST = 4012
# Closed when the store is lost (and when a snapshot cannot be read): "try again later", 4000 + 1013.
# Clients show the counts as unavailable, reconnect with backoff and resync once the store is back.
CLOSE_TRY_AGAIN = 4013


class LiveSocket(Protocol):
    """What the relay needs from a dashboard consumer."""

    async def send_update(self, text: str) -> bool | None: ...

    async def send_presence(self, text: str) -> bool | None: ...

    async def close(self, code: int | bool | None = None) -> None: ...


def update_frame(pending: Pending) -> str:
    """The websocket text of one update."""
    return json.dumps({"type": "update", "counters": as_counters(pending)}, separators=(",", ":"))


class LocalFanout:
    """This process's open dashboard sockets, fed by a single relay task subscribed to the group."""

    def __init__(self) -> None:
        self._sockets: set[LiveSocket] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._relay: asyncio.Task | None = None
        self._joined: asyncio.Future | None = None
        # Other group messages than totals, by type: handlers called on the loop with the message.
        self._listeners: dict[str, Callable[[dict], None]] = {}

    def __len__(self) -> int:
        return len(self._sockets)

    async def join(self, socket: LiveSocket) -> None:
        """Add a socket; return once the relay is in the group, so no later update can be missed."""
        self._sockets.add(socket)
        loop = self._loop = asyncio.get_running_loop()
        if self._relay is None or self._relay.done() or self._relay.get_loop() is not loop:
            self._joined = loop.create_future()
            # A fresh context: the relay outlives the connection that started it.
            self._relay = loop.create_task(self._run(self._joined), context=contextvars.Context())
        await asyncio.shield(self._joined)

    def leave(self, socket: LiveSocket) -> None:
        """Forget a closed socket."""
        self._sockets.discard(socket)

    def listen(self, event: str, handler: Callable[[dict], None]) -> None:
        """Have the relay pass group messages of type `event` to `handler` (on the loop; must not block)."""
        self._listeners[event] = handler

    async def _run(self, joined: asyncio.Future) -> None:
        layer = get_channel_layer()
        # Coalesced again here, so a page gets at most ~10 frames a second however many workers send.
        coalescer = Coalescer(
            self._deliver, interval=conf.broadcast_interval, what="Live fan-out", busy_share=FANOUT_SHARE
        )
        catalog = CatalogRelay(self.hand_out)
        channel = None
        try:
            channel = await layer.new_channel()
            await layer.group_add(GROUP_NAME, channel)
            joined.set_result(None)
            while True:
                try:
                    message = await asyncio.wait_for(layer.receive(channel), RENEW_SECONDS)
                except TimeoutError:
                    await layer.group_add(GROUP_NAME, channel)
                    continue
                if asyncio.current_task().cancelling():
                    # Python 3.11's wait_for returns a message that arrived as the relay was cancelled
                    # (loop shutdown) and swallows the cancellation: honour it here.
                    raise asyncio.CancelledError
                if message.get("type") == UPDATE_EVENT:
                    coalescer.add((c["name"], c["value"], c["version"]) for c in message["counters"])
                elif message.get("type") == CATALOG_EVENT:
                    catalog.changed()
                elif (handler := self._listeners.get(message.get("type"))) is not None:
                    try:
                        handler(message)
                    except Exception:
                        # Its own failure, not the layer's: the relay and its sockets carry on.
                        logger.exception("Live relay: the %s handler failed", message.get("type"))
        except asyncio.CancelledError:
            if channel is not None:
                await layer.group_discard(GROUP_NAME, channel)
            raise
        except Exception as exc:
            logger.exception("Live relay lost the channel layer; closing %d socket(s)", len(self._sockets))
            if not joined.done():
                joined.set_exception(exc)
            await self._close_all()

    async def _deliver(self, pending: Pending) -> None:
        """Hand one update frame to every socket."""
        await self.hand_out(update_frame(pending))

    async def hand_out(self, text: str, *, presence: bool = False) -> int:
        """Hand one frame (totals or viewing-now counts) to every socket, one failing stopping no other."""
        # Encoded once on first use and written as is to every socket that can take it (wire.py); the
        # count of those is returned, so a bench or test can tell the fast path was taken.
        frame, direct = OutgoingText(text), 0
        for socket in list(self._sockets):
            try:
                direct += bool(await (socket.send_presence(frame) if presence else socket.send_update(frame)))
            except Exception:
                logger.warning("Dropping a dashboard socket that failed to send", exc_info=True)
                self._sockets.discard(socket)
        return direct

    def close_all_soon(self, code: int) -> None:
        """Close every socket with `code`, from any thread (the closing runs on the sockets' loop)."""
        loop = self._loop
        if loop is not None and not loop.is_closed() and self._sockets:
            asyncio.run_coroutine_threadsafe(self._close_all(code), loop)

    async def _close_all(self, code: int = CLOSE_RELAY_LOST) -> None:
        sockets, self._sockets = list(self._sockets), set()
        for socket in sockets:
            try:
                await socket.close(code=code)
            except Exception:
                logger.warning("Could not close a dashboard socket", exc_info=True)


fanout = LocalFanout()


@receiver(store_lost)
def close_sockets_when_the_store_is_lost(**kwargs: object) -> None:
    """Dashboards reconnect and show the counts as unavailable until a snapshot can be read again."""
    fanout.close_all_soon(CLOSE_TRY_AGAIN)
