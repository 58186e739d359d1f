"""Deliver group updates to this process's open dashboards through one layer subscription.

Each dashboard socket joining the group itself would cost the layer one message per socket per
update (and InMemoryChannelLayer rescans every channel on each receive, quadratic in sockets); with
one relay per process the layer carries one message per process, and the relay merges what every
worker sends and hands the same text, serialised once, to every local socket at most once per
interval.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Protocol

from channels.layers import get_channel_layer

from counters import conf
from counters.live.audience import audience_view
from counters.live.broadcast import UPDATE_EVENT
from counters.live.catalog import CATALOG_EVENT, CatalogRelay, read_catalog_frame
from counters.live.coalesce import Coalescer, Pending, as_counters
from counters.live.heartbeat import HEARTBEAT_EVENT, HEARTBEAT_FRAME
from counters.live.loop import LiveLoop
from counters.live.relay import Relay
from counters.live.tallies import TALLIES_EVENT, TallyRelay
from counters.live.wire import OutgoingText
from counters.metrics import metrics
from counters.runtime import runtime

logger = logging.getLogger(__name__)

# The share of this process's time that handing frames to its sockets may take: with thousands of
# sockets, frames come less often rather than crowding out the requests that count (coalesce.py).
FANOUT_SHARE = 0.25
# Closed when the relay loses the layer: clients reconnect and resync from a snapshot. 4000 + the
# standard 1012, since daphne (autobahn) lets a server close only with 1000 or 3000-4999.
CLOSE_RELAY_LOST = 4012
# How long a socket waits for the relay to join the group before it is closed with CLOSE_RELAY_LOST.
JOIN_SECONDS = 5.0
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


class RelayUnavailable(Exception):
    """The relay cannot reach the channel layer now: the socket closes and its page reconnects later."""


class LocalFanout:
    """This process's open dashboard sockets, fed by a single relay task subscribed to the group."""

    def __init__(self, live: LiveLoop, *, read_catalog: Callable[[], str] = read_catalog_frame) -> None:
        self._live = live
        self._read_catalog = read_catalog
        self._sockets: set[LiveSocket] = set()
        self._relay: asyncio.Task | None = None
        self._joined: asyncio.Future | None = None
        # When the oldest update not yet handed out reached the relay (the push lag's start).
        self._waiting_since: float | None = None
        self._layer_down = False  # so an outage is one warning, not one per socket or retry
        # Coalesced again here, so a page gets at most ~10 frames a second however many workers send.
        self._updates = Coalescer(
            live,
            self._deliver,
            interval=conf.broadcast_interval,
            what="Live fan-out",
            busy_share=FANOUT_SHARE,
        )
        self._catalog = CatalogRelay(live, self._hand_out_catalog, read=read_catalog)
        self._close_timer: asyncio.Task | None = None
        self._tallies = TallyRelay(live, self.hand_out)
        # What the relay does with each type of group message: a handler called on the loop, not blocking.
        self._handlers: dict[str, Callable[[dict], None]] = {
            UPDATE_EVENT: self._on_update,
            CATALOG_EVENT: self._on_catalog,
            HEARTBEAT_EVENT: self._on_heartbeat,
            TALLIES_EVENT: self._tallies.heard,
        }
        live.when_bound(self._restart)

    def __len__(self) -> int:
        return len(self._sockets)

    async def join(self, socket: LiveSocket) -> None:
        """Add a socket; return once the relay is in the group, so no later update can be missed."""
        self._sockets.add(socket)
        self._count_sockets()
        if self._relay is None or not self._relay.running():
            self._relay = Relay(
                get_channel_layer(),
                dispatch=self._dispatch,
                lost=self._relay_lost,
                beat_seconds=conf.heartbeat_seconds(),
            ).start(self._live.start)
        try:
            await asyncio.wait_for(asyncio.shield(self._relay.joined), JOIN_SECONDS)
        except BaseException as exc:  # a cancelled connect too: the socket must not stay counted
            self.leave(socket)
            if isinstance(exc, Exception):
                raise RelayUnavailable(str(exc) or type(exc).__name__) from exc
            raise

    def heartbeat_seconds(self) -> float:
        """Seconds between the heartbeats pages hear (they reconnect after three silent ones)."""
        return conf.heartbeat_seconds()

    def leave(self, socket: LiveSocket) -> None:
        """Forget a closed socket."""
        self._sockets.discard(socket)
        self._count_sockets()

    def listen(self, event: str, handler: Callable[[dict], None]) -> None:
        """Have the relay pass group messages of type `event` to `handler` (on the loop; must not block)."""
        self._handlers[event] = handler

    def store_lost(self) -> None:
        """The store is gone: dashboards reconnect and show the counts as unavailable until it is back."""
        self.close_all_soon(CLOSE_TRY_AGAIN)

    def close_all_soon(self, code: int) -> None:
        """Close every socket with `code`, from any thread (the closing runs on the live loop)."""
        if self._sockets:
            self._live.submit(lambda: self._close_all(code))

    def close(self) -> None:
        """Stop the relay (a runtime closing; from any thread)."""
        relay = self._relay
        if relay is not None:
            self._live.run_soon(relay.cancel)

    def _restart(self) -> None:
        """A new loop: the relay and the sockets of the old one are gone."""
        self._relay = None
        self._sockets = set()
        self._count_sockets()
        self._catalog = CatalogRelay(self._live, self._hand_out_catalog, read=self._read_catalog)
        self._close_timer = None

    def _relay_lost(self, relay: Relay, why: str) -> None:
        """A relay lost its layer: forget it, say so once, and close its sockets so their pages resync."""
        if self._relay is not relay:
            return  # replaced already: its sockets went with it
        self._relay = None
        self._layer_lost(why)
        sockets, self._sockets = list(self._sockets), set()
        self._count_sockets()
        # A task of its own: the relay that told us may be cancelled next, and must not cut this short.
        self._live.start(close_sockets(sockets, CLOSE_RELAY_LOST))

    def _layer_lost(self, why: str) -> None:
        """One warning per outage, however many sockets and retries meet it."""
        if not self._layer_down:
            self._layer_down = True
            logger.warning("Live push lost the channel layer (%s); closing %d socket(s)", why, len(self))
            metrics().relay_failures.inc()

    def _dispatch(self, message: dict) -> None:
        """Hand a group message to the handler of its type; a failing handler stops nothing else."""
        handler = self._handlers.get(message.get("type"))
        if handler is None:
            return
        try:
            handler(message)
        except Exception:
            logger.exception("Live relay: the %s handler failed", message.get("type"))

    def _on_update(self, message: dict) -> None:
        if self._waiting_since is None:
            self._waiting_since = time.monotonic()
        self._updates.add(
            (c["name"], c["value"], c["version"], c.get("seq", "")) for c in message["counters"]
        )

    def _on_catalog(self, message: dict) -> None:
        audience_view().forget()
        self._catalog.changed()

    async def _hand_out_catalog(self, staff: str, audience: str) -> None:
        """Hand the catalog to every socket, then watch for the next poll to close on its timer."""
        await self.hand_out(staff, audience=audience)
        self._watch_close()

    def _watch_close(self) -> None:
        """Read the catalog again when the soonest poll closes on its timer (its totals may show then)."""
        at = audience_view().next_close
        if at is None or (self._close_timer is not None and not self._close_timer.done()):
            return
        self._close_timer = self._live.start(self._closed_by_time(at.timestamp()))

    async def _closed_by_time(self, at: float) -> None:
        # The runtime's clock, not the wall's: a test moves it instead of waiting for the poll to close.
        await runtime().clock.sleep_until(at)
        self._on_catalog({})

    def _on_heartbeat(self, message: dict) -> None:
        if self._layer_down:
            self._layer_down = False
            logger.warning("Live push: the channel layer answers again")
        if self._relay is not None:
            self._relay.echoed()
        self._live.start(self.hand_out(HEARTBEAT_FRAME))
        self._watch_close()

    async def _deliver(self, pending: Pending) -> None:
        """Hand one update frame to every socket; count the frames and how long the update waited."""
        since, self._waiting_since = self._waiting_since, None
        text = update_frame(pending)
        await self.hand_out(text, audience=audience_view().update_frame(text, pending))
        # Sockets that failed were dropped by the hand-out: the rest each took the frame.
        found = metrics()
        found.live_frames.labels("update").inc(len(self._sockets))
        if since is not None:
            found.push_lag.observe(time.monotonic() - since)
        self._count_sockets()

    def _count_sockets(self) -> None:
        """Show this worker's open sockets in the metrics."""
        metrics().live_sockets.set(len(self._sockets))

    async def hand_out(self, text: str, *, presence: bool = False, audience: str | bool | None = True) -> int:
        """Hand one frame (totals or viewing-now counts) to every socket, one failing stopping no other.

        `audience` is what audience sockets get instead (audience.py): True the same text, None nothing."""
        # Encoded once on first use and written as is to every socket that can take it (wire.py); the
        # count of those is returned, so a bench or test can tell the fast path was taken.
        frame, direct = OutgoingText(text), 0
        public = frame if audience is True or audience == text else audience and OutgoingText(audience)
        for socket in list(self._sockets):
            sent = frame if getattr(socket, "staff", False) else public
            if not sent:
                continue
            try:
                direct += bool(await (socket.send_presence(sent) if presence else socket.send_update(sent)))
            except Exception:
                logger.warning("Dropping a dashboard socket that failed to send", exc_info=True)
                self._sockets.discard(socket)
        return direct

    async def _close_all(self, code: int = CLOSE_RELAY_LOST) -> None:
        sockets, self._sockets = list(self._sockets), set()
        self._count_sockets()
        await close_sockets(sockets, code)


async def close_sockets(sockets: list[LiveSocket], code: int) -> None:
    """Close each socket with `code`; one failing stops no other."""
    for socket in sockets:
        try:
            await socket.close(code=code)
        except Exception:
            logger.warning("Could not close a dashboard socket", exc_info=True)


def fanout() -> LocalFanout:
    """This process's fan-out."""
    return runtime().fanout
