"""Push the numbers that grow without a version: each page's and the site's unique visitors of the day,
and each page's bot views.

A first visit tells this process's `TallyPush` which counts rose; at most once per
COUNTERS_BROADCAST_INTERVAL it reads those counts (one read, however many visits met) and sends one
group message `counters.tallies`. A bot's view brings its new `bot_views` with its write, so it needs no
read. Each process's relay merges what every worker sends and hands its sockets at most ~10 frames a
second: `{"type": "tallies", "day": "D#<yyyy-mm-dd>", "visitors": {...}, "bots": {...}}`.

Both only grow (a day's visitors within that day; bot views are never reset), so pages and relays
keep the largest number they heard: a read that finished late never shows an older count.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

from counters import conf
from counters.domain.visitors import visit_day
from counters.live.broadcast import group_send
from counters.live.loop import LiveLoop
from counters.runtime import runtime
from counters.runtime.off_loop import in_thread
from counters.store import get_store

TALLIES_EVENT = "counters.tallies"

logger = logging.getLogger(__name__)


def read_visitors(names: list[str]) -> tuple[str, dict[str, int]]:
    """Today's key and the unique visitors of each of `names` today (0 for none)."""
    clock = runtime().clock
    day = visit_day(clock.time(), clock.zone)
    found = get_store().visitors_on(names, day=day)
    return day.key, {name: found.get(name, 0) for name in names}


def grow(known: dict[str, int], heard: dict[str, int]) -> dict[str, int]:
    """Keep the larger count per name; return the names that grew, with their new counts."""
    grown = {name: count for name, count in heard.items() if count > known.get(name, -1)}
    known.update(grown)
    return grown


@dataclass
class Tallies:
    """Counts heard and not passed on yet: the day's visitors (of the newest day heard) and bot views."""

    day: str = ""
    visitors: dict[str, int] = field(default_factory=dict)
    bots: dict[str, int] = field(default_factory=dict)

    def merge(self, *, day: str, visitors: dict[str, int], bots: dict[str, int]) -> None:
        """Add what was heard: a newer day's visitors replace older ones; each count keeps its largest."""
        if visitors and day > self.day:
            self.day, self.visitors = day, {}
        if visitors and day == self.day:
            grow(self.visitors, visitors)
        grow(self.bots, bots)

    def take(self) -> Tallies:
        """What is held, leaving nothing (the day stays known)."""
        held = Tallies(self.day, self.visitors, self.bots)
        self.visitors, self.bots = {}, {}
        return held

    def __bool__(self) -> bool:
        return bool(self.visitors or self.bots)

    def as_message(self, kind: str) -> dict:
        """The group message (kind TALLIES_EVENT) or the websocket frame (kind "tallies")."""
        return {"type": kind, "day": self.day, "visitors": self.visitors, "bots": self.bots}


class TallyPush:
    """This process's side: which counts rose, read and sent at most once per interval."""

    def __init__(
        self,
        live: LiveLoop,
        *,
        send: Callable[[dict], Awaitable[None]] = group_send,
        read: Callable[[list[str]], tuple[str, dict[str, int]]] = read_visitors,
    ) -> None:
        self._live = live
        self._send = send
        self._read = read
        self._risen: set[str] = set()
        self._bots: dict[str, int] = {}
        self._throttle = live.throttle(self._push, interval=conf.broadcast_interval, what="Tally push")

    def visitors_rose(self, names: Iterable[str]) -> None:
        """Unique visitors of these names rose (from any thread; never blocks or raises)."""
        self._soon(self._add_visitors, list(names))

    def bots_rose(self, name: str, bot_views: int) -> None:
        """A page's bot views are now `bot_views` (from any thread; never blocks or raises)."""
        self._soon(self._add_bots, {name: bot_views})

    def _soon(self, function: Callable, argument: object) -> None:
        # Without a loop (a command, Django's test client) no page of this process listens.
        try:
            self._live.run_soon(function, argument)
        except Exception:
            logger.exception("Could not queue visitor or bot counts for the live push")

    def _add_visitors(self, names: list[str]) -> None:
        self._risen.update(names)
        self._throttle.poke()

    def _add_bots(self, bots: dict[str, int]) -> None:
        grow(self._bots, bots)
        self._throttle.poke()

    async def _push(self) -> None:
        risen, bots = sorted(self._risen), self._bots
        self._risen, self._bots = set(), {}
        try:
            # In a worker thread: the store is boto3, and the loop must keep serving sockets.
            day, visitors = await in_thread(self._read, risen) if risen else ("", {})
            await self._send(Tallies(day, visitors, bots).as_message(TALLIES_EVENT))
        except Exception:
            # Tried again by the throttle, with what came meanwhile.
            self._risen.update(risen)
            grow(self._bots, bots)
            raise


class TallyRelay:
    """Used on one event loop: what every worker sent, merged, handed to this process's sockets."""

    def __init__(self, live: LiveLoop, deliver: Callable[[str], Awaitable[object]]) -> None:
        self._deliver = deliver
        self._held = Tallies()
        self._throttle = live.throttle(self._hand_out, interval=conf.broadcast_interval, what="Tally fan-out")

    def heard(self, message: dict) -> None:
        """A worker's tallies (on the loop)."""
        visitors, bots = message.get("visitors") or {}, message.get("bots") or {}
        self._held.merge(day=str(message.get("day") or ""), visitors=visitors, bots=bots)
        if self._held:
            self._throttle.poke()

    async def _hand_out(self) -> None:
        held = self._held.take()
        if held:
            await self._deliver(json.dumps(held.as_message("tallies"), separators=(",", ":")))


def tally_push() -> TallyPush:
    """This process's tally push."""
    return runtime().tallies


def publish_visitors(names: Iterable[str]) -> None:
    """The unique visitors of these names rose: push their new counts soon (never blocks or raises)."""
    tally_push().visitors_rose(names)


def publish_bot_views(name: str, bot_views: int) -> None:
    """A page's bot views rose to `bot_views`: push it soon (never blocks or raises)."""
    tally_push().bots_rose(name, bot_views)
