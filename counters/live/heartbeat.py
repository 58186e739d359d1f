"""Prove the live push is alive end to end: the relay's own message goes round the layer every beat.

A paused Redis or a half-open connection leaves sockets open and silent, and a page would go on saying
"live" over stale totals. So every COUNTERS_HEARTBEAT_SECONDS the relay sends a message to its own
channel through the channel layer; when it comes back, every socket gets `{"type": "heartbeat"}`. A
page that hears nothing for a few beats says "reconnecting" and opens a new socket (live.js); a relay
whose message has not come back for SILENT_BEATS beats gives up its sockets, so they reconnect and
resync from a fresh snapshot once the layer answers again.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable

HEARTBEAT_EVENT = "counters.heartbeat"
HEARTBEAT_FRAME = json.dumps({"type": "heartbeat"}, separators=(",", ":"))
# Beats without an echo after which the relay counts the layer as silent.
SILENT_BEATS = 3

logger = logging.getLogger(__name__)


class Heartbeat:
    """One relay's beats: sent through the layer to itself, their echoes timed on the loop."""

    def __init__(self, *, send: Callable[[dict], Awaitable[None]], interval: float) -> None:
        self._send = send
        self.interval = interval
        self._last_echo = asyncio.get_running_loop().time()

    def echoed(self) -> None:
        """The relay got its own beat back: the layer carries messages."""
        self._last_echo = asyncio.get_running_loop().time()

    def silent_for(self) -> float:
        """Seconds since the last echo."""
        return asyncio.get_running_loop().time() - self._last_echo

    async def run(self) -> None:
        """Beat until cancelled; return once the echoes have stopped for SILENT_BEATS beats."""
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(self.interval)
            if loop.time() - before > 2 * self.interval:
                # The loop itself stalled (a long pause, a blocking call): no echo could be heard then
                # either, so the layer gets a fresh chance rather than the blame.
                self.echoed()
            if self.silent_for() > SILENT_BEATS * self.interval:
                return
            try:
                # Bounded: a paused Redis must not hold the beat; the missing echo tells the rest.
                await asyncio.wait_for(self._send({"type": HEARTBEAT_EVENT}), self.interval)
            except Exception as exc:  # a full channel, a Redis error: the missing echo says it all
                logger.debug("A heartbeat could not be sent: %r", exc)
