"""Viewing now: how many browsers have each page open, summed over every worker, pushed like totals.

A page's socket names the page it shows (`/ws/counters/?page=<name>`); this process counts its own
sockets per page. A change is written to the presence store (store/presence.py: Redis, or this
process) and announced to every worker's relay with one group message; each relay, told of a change,
reads the sums and hands its sockets the pages whose number moved, as
`{"type": "presence", "viewing": {"<page>": n}}`. Writes and reads go through throttles as
totals, so each happens at most once per COUNTERS_BROADCAST_INTERVAL per process however many sockets
come and go. With Redis, each worker also rewrites its counts and reads the sums every third of
COUNTERS_PRESENCE_TTL: a worker that died without a word drops out of every page within about 1⅓ TTL.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import uuid
from collections import Counter

from channels.layers import get_channel_layer

from counters import conf
from counters.live.broadcast import GROUP_NAME
from counters.live.fanout import FANOUT_SHARE, LocalFanout
from counters.live.loop import LiveLoop
from counters.runtime import runtime
from counters.runtime.off_loop import in_thread
from counters.store.presence import Counts, PresenceStore

PRESENCE_EVENT = "presence.changed"

logger = logging.getLogger(__name__)


def presence_frame(viewing: Counts) -> str:
    """The websocket text telling pages how many browsers view each page now."""
    return json.dumps({"type": "presence", "viewing": viewing}, separators=(",", ":"))


def moved(known: Counts, totals: Counts) -> Counts:
    """The pages whose number differs between two sums (0 for a page nobody views any more)."""
    return {
        page: totals.get(page, 0)
        for page in known.keys() | totals.keys()
        if known.get(page, 0) != totals.get(page, 0)
    }


class Presence:
    """This process's sockets per page, and the sums over every worker it last read."""

    def __init__(self, live: LiveLoop, *, fanout: LocalFanout, store: PresenceStore) -> None:
        # Names this process's hash in Redis; a restarted worker is a new one.
        self.worker = uuid.uuid4().hex
        self._live = live
        self._fanout = fanout
        self._store = store
        self._local: Counter[str] = Counter()
        self._known: Counts = {}
        self._published: Counts = {}  # what the last write that was announced published
        interval = conf.broadcast_interval
        self._writer = live.throttle(self._write, interval=interval, what="Presence write")
        self._reader = live.throttle(
            self._read, interval=interval, what="Presence read", busy_share=FANOUT_SHARE
        )
        self._heartbeat: asyncio.Task | None = None
        self._forget_at_exit = False
        self._started = False
        live.when_bound(self._restart)
        # The relay passes this group message on to us; nothing here runs until a socket connects.
        fanout.listen(PRESENCE_EVENT, self.changed_elsewhere)

    def viewing(self) -> Counts:
        """The sums this process last read (call on the loop: it starts following them)."""
        self._start()
        return dict(self._known)

    def join(self, page: str) -> None:
        """A socket of this process shows `page` (call on the loop)."""
        self._local[page] += 1
        self._start()
        self._writer.poke()

    def leave(self, page: str) -> None:
        """A socket of this process that showed `page` closed (call on the loop)."""
        self._local[page] -= 1
        if self._local[page] <= 0:
            del self._local[page]
        self._start()
        self._writer.poke()

    def changed_elsewhere(self, message: dict) -> None:
        """The relay heard that some worker's counts changed: read the sums again (on the loop)."""
        self._start()
        self._reader.poke()

    def local(self) -> Counts:
        """This process's own sockets per page."""
        return dict(self._local)

    def _restart(self) -> None:
        """A new loop: the heartbeat of the old one is gone; start again at the next use."""
        self._started = False

    def _start(self) -> None:
        """On the loop's first use: (with Redis) the heartbeat, and what this process holds now published."""
        if self._started:
            return
        self._started = True
        self._heartbeat = None
        if self._store.expires:
            self._heartbeat = self._live.start(self._beat())
        # A new loop starts from what this process holds now (in tests, a loop's last write may have
        # been cut short by its end): publish it if it differs from what was last announced.
        self._known = {}
        self._writer.poke()
        if self._heartbeat is not None:
            self._reader.poke()  # learn the sums other workers hold already

    async def _write(self) -> None:
        """Publish this process's counts, then tell every relay (this one too) to read the sums."""
        counts = self.local()
        if counts == self._published:
            return  # back where the last announcement left it: nothing to tell
        await in_thread(self._store.publish, self.worker, counts, ttl=conf.presence_ttl())
        if self._store.expires and not self._forget_at_exit:
            self._forget_at_exit = True
            atexit.register(self._forget)
        await get_channel_layer().group_send(GROUP_NAME, {"type": PRESENCE_EVENT})
        self._published = counts

    async def _read(self) -> None:
        """Read the sums and hand every socket of this process the pages whose number moved."""
        totals = await in_thread(self._store.totals)
        changed, self._known = moved(self._known, totals), totals
        if changed:
            await self._fanout.hand_out(presence_frame(changed), presence=True)

    async def _beat(self) -> None:
        """Keep this process's counts alive in Redis and notice workers whose counts expired."""
        while True:
            await asyncio.sleep(conf.presence_ttl() / 3)
            if self._local:
                # Unchanged counts need no announcement, only a fresh expiry (and a Redis that lost
                # them, restarted, gets them back).
                try:
                    await in_thread(self._store.publish, self.worker, self.local(), ttl=conf.presence_ttl())
                except Exception as exc:
                    logger.warning("Viewing-now heartbeat failed; retrying at the next one: %s", exc)
            if len(self._fanout):
                self._reader.poke()

    def close(self) -> None:
        """Stop the heartbeat (a test's runtime closing; a server's ends with its process)."""
        if self._heartbeat is not None and not self._heartbeat.get_loop().is_closed():
            self._heartbeat.get_loop().call_soon_threadsafe(self._heartbeat.cancel)

    def _forget(self) -> None:
        """At a clean exit, drop this process's counts at once instead of waiting for them to expire."""
        try:
            self._store.forget(self.worker)
        except Exception as exc:
            logger.warning("Could not drop this worker's viewing-now counts: %s", exc)


def presence() -> Presence:
    """This process's viewing-now counts."""
    return runtime().presence
