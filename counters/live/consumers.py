"""The dashboard websocket: a snapshot of every counter on connect, then coalesced updates."""

from __future__ import annotations

import logging

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from counters.exceptions import StoreUnavailable
from counters.live.fanout import CLOSE_TRY_AGAIN, fanout
from counters.live.snapshots import snapshots

logger = logging.getLogger(__name__)


class DashboardConsumer(AsyncJsonWebsocketConsumer):
    """Push counter totals to one open page; the page sends nothing."""

    # No layer channel of its own (an alias no layer is configured under): updates come through the
    # relay, and a per-socket channel would poll Redis once per client and crash when Redis is down.
    channel_layer_alias = "dashboard-sockets-use-the-relay"

    async def connect(self) -> None:
        """Join the process's fan-out, then send the snapshot, then whatever arrived meanwhile."""
        # Updates that come before the snapshot is out wait here, so the snapshot is always first.
        self.held: list[str] | None = []
        await self.accept()
        try:
            # Joined before the read, so no update between the read and the join is lost.
            await fanout.join(self)
            counters = await snapshots.get()
        except StoreUnavailable as exc:
            # "Try again later": the client shows the counts as unavailable and reconnects with backoff.
            logger.warning("No snapshot for a dashboard client: %s", exc)
            await self.close(code=CLOSE_TRY_AGAIN)
            return
        except Exception:
            logger.exception("Dashboard client could not join the live push")
            await self.close(code=CLOSE_TRY_AGAIN)
            return
        # "open": live pages on this process's fan-out now, this one included (the dashboard's headline).
        await self.send_json({"type": "snapshot", "counters": counters, "open": len(fanout)})
        held, self.held = self.held, None
        for text in held:
            await self.send(text_data=text)

    async def disconnect(self, code: int) -> None:
        """Leave the fan-out."""
        fanout.leave(self)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        """Ignore whatever the client sends: this socket only pushes."""

    async def send_update(self, text: str) -> None:
        """Send one update frame (serialised once for every socket of the process)."""
        if self.held is not None:
            self.held.append(text)
            return
        await self.send(text_data=text)
