"""Tell open pages that the catalog changed: a poll closed, reopened or added, an option or a counter added.

Totals travel as coalesced updates; these changes are rare and structural, so they go as one small group
message with no data (`counters.catalog`). Each process's relay then reads the polls and counters once,
whatever the number of its sockets, and hands every open page the same frame
`{"type": "catalog", "counters": [...], "polls": [...]}`; changes that meet while a read runs are served
by one more read after it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from counters import selectors
from counters.live import broadcast
from counters.live.audience import audience_view, catalog_frames
from counters.live.loop import LiveLoop
from counters.runtime.off_loop import in_thread

CATALOG_EVENT = "counters.catalog"

logger = logging.getLogger(__name__)


def publish_catalog() -> None:
    """Ask every process's relay to send open pages the current polls and counters (never raises)."""
    # This process withholds poll totals from audience sockets at once, before the event comes back.
    audience_view().forget()
    broadcast.announce({"type": CATALOG_EVENT})


def read_catalog_frame() -> tuple[str, str]:
    """The websocket text of the catalog for staff and for audience sockets: every counter's state and
    every poll with its totals (for the audience, only those its polls' rules show)."""
    view = audience_view()
    generation = view.generation
    counters = [state.as_dict() for state in selectors.counter_list()]
    polls = selectors.poll_list()
    now = selectors.now_utc()
    view.learn(polls, generation, now)
    return catalog_frames(polls, counters, now)


class CatalogRelay:
    """Used on one event loop: one catalog read at a time, its frame handed to `deliver`."""

    def __init__(
        self,
        live: LiveLoop,
        deliver: Callable[[str, str], Awaitable[None]],
        *,
        read: Callable[[], str | tuple[str, str]] = read_catalog_frame,
    ) -> None:
        self._live = live
        self._deliver = deliver
        self._read = read
        self._task: asyncio.Task | None = None
        self._again = False

    def changed(self) -> None:
        """Read and send the catalog soon; a change during a read makes one more read after it."""
        if self._task is not None and not self._task.done():
            self._again = True
            return
        self._task = self._live.start(self._run())

    async def _run(self) -> None:
        self._again = True
        while self._again:
            self._again = False
            try:
                # In a worker thread: the store is boto3, and the loop must keep serving sockets.
                frame = await in_thread(self._read)
            except Exception:
                # Pages keep what they show; their next snapshot after a reconnect is current again.
                logger.warning("Could not read the catalog for open pages", exc_info=True)
                continue
            staff, audience = (frame, frame) if isinstance(frame, str) else frame
            await self._deliver(staff, audience)
