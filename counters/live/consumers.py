"""The dashboard websocket: a snapshot of every counter on connect, then coalesced updates."""

from __future__ import annotations

import logging
from functools import cached_property
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from counters.domain.names import DASHBOARD_COUNTER, validate_counter_name, validate_slug
from counters.domain.visitors import visit_day
from counters.exceptions import InvalidInput, StoreUnavailable
from counters.live.audience import audience_view, socket_is_staff
from counters.live.fanout import CLOSE_RELAY_LOST, CLOSE_TRY_AGAIN, RelayUnavailable
from counters.live.socket_limits import owner_of
from counters.live.wire import DirectWriter, OutgoingText, direct_writer
from counters.log_limits import refusals_logger
from counters.runtime import runtime

logger = logging.getLogger(__name__)
# A client can be refused as often as it asks: at most one line per kind a minute (log_limits.py).
refusals = refusals_logger()

# 4000 + 404: the page named in `?page=` is no registered view counter; reconnect without it.
CLOSE_UNKNOWN_PAGE = 4404
# A poll's audience page (/p/<code>) counts its viewers under `room:<poll>` (':' is in no counter name).
ROOM_PAGE_PREFIX = "room:"


def page_asked(scope: dict) -> str | None:
    """The page a socket says it shows (`?page=<name>`), None if it names none; InvalidInput if malformed."""
    pages = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True).get("page")
    if pages is None:
        return None
    if len(pages) != 1:
        raise InvalidInput("A socket shows one page.")
    if pages[0].startswith(ROOM_PAGE_PREFIX):
        validate_slug(pages[0].removeprefix(ROOM_PAGE_PREFIX), what="poll id")
        return pages[0]
    return validate_counter_name(pages[0])


def is_view_counter(counters: list[dict], name: str) -> bool:
    """Whether a snapshot lists `name` as a counter of views (a page), as a poll's audience page, or it is
    the dashboard.

    The dashboard counts as viewed even on a table without its counter: "dashboards open" is its number.
    """
    if name == DASHBOARD_COUNTER:
        return True
    if name.startswith(ROOM_PAGE_PREFIX):
        options = name.removeprefix(ROOM_PAGE_PREFIX) + "."
        return any(counter["name"].startswith(options) for counter in counters)
    return any(counter["name"] == name and counter["kind"] == "views" for counter in counters)


def today_key() -> str:
    """The key of the site's day now (its TIME_ZONE), as the counters' visitors of today carry it."""
    clock = runtime().clock
    return visit_day(clock.time(), clock.zone).key


class DashboardConsumer(AsyncJsonWebsocketConsumer):
    """Push counter totals and viewing-now counts to one open page; the page sends nothing."""

    # No layer channel of its own (an alias no layer is configured under): updates come through the
    # relay, and a per-socket channel would poll Redis once per client and crash when Redis is down.
    channel_layer_alias = "dashboard-sockets-use-the-relay"

    async def connect(self) -> None:
        """Join the process's fan-out, then send the snapshot, then whatever arrived meanwhile."""
        self.page: str | None = None
        self.owner = None  # set once admitted under the socket limits
        # Staff sockets get every poll total; others only those their polls show (audience.py).
        self.staff = socket_is_staff(self.scope)
        process = runtime()
        process.live_loop.follow_running()
        # Built before joining, so viewing now hears every change from the first one.
        self.fanout, self.presence = process.fanout, process.presence
        try:
            page = page_asked(self.scope)
        except InvalidInput as exc:
            refusals.info("Refused a live socket: %s", exc.detail)
            await self.close()  # before accepting: the handshake is refused (HTTP 403)
            return
        if not self._admitted(process):
            await self.close()
            return
        try:
            await self._open(process, page)
        except BaseException:
            # Cancelled mid-connect (the client left while the snapshot was read: no disconnect follows).
            self._release()
            raise

    async def _open(self, process, page: str | None) -> None:
        """Accept, join, send the snapshot and whatever came meanwhile, then count as viewing `page`."""
        # Frames that come before the snapshot is out wait here, so the snapshot is always first;
        # each is (is a viewing-now frame, text).
        self.held: list[tuple[bool, str]] | None = []
        await self.accept()
        counters = await self._join(process)
        if counters is None:
            return
        if page is not None and not is_view_counter(counters, page):
            await self.close(code=CLOSE_UNKNOWN_PAGE)
            return
        await self._send_snapshot(counters)
        if page is not None:
            self.page = page
            self.presence.join(page)

    def _admitted(self, process) -> bool:
        """Count this socket against its address's and browser's limits; False (logged) if over either."""
        owner, limits = owner_of(self.scope), process.socket_limits
        if not limits.admit(owner):
            refusals.info("Refused a live socket: its address or browser holds too many open already")
            return False
        self.owner, self.limits = owner, limits
        return True

    async def _join(self, process) -> list[dict] | None:
        """Join the fan-out, then read the snapshot; None (the socket closed) if it cannot be read."""
        try:
            # Joined before the read, so no update between the read and the join is lost.
            await self.fanout.join(self)
            return await process.snapshots.get()
        except RelayUnavailable as exc:
            # The fan-out said so once for the whole outage; the page reconnects with backoff.
            logger.debug("A dashboard client could not join the live push: %s", exc)
            await self.close(code=CLOSE_RELAY_LOST)
            return None
        except StoreUnavailable as exc:
            # "Try again later": the client shows the counts as unavailable and reconnects with backoff.
            logger.warning("No snapshot for a dashboard client: %s", exc)
        except Exception:
            logger.exception("Dashboard client could not join the live push")
        await self.close(code=CLOSE_TRY_AGAIN)
        return None

    async def _send_snapshot(self, counters: list[dict]) -> None:
        """Send the snapshot with the viewing-now sums, then the update frames held meanwhile."""
        viewing = self.presence.viewing()
        # Viewing-now frames held so far are older than the sums the snapshot carries.
        self.held = [(is_presence, text) for is_presence, text in self.held if not is_presence]
        # "open": live pages on this process's fan-out now, this one included; "day": the day whose
        # unique visitors the counters carry (pages keep the largest count heard for a day).
        await self.send_json(
            {
                "type": "snapshot",
                "counters": counters if self.staff else audience_view().counters(counters),
                "day": today_key(),
                "open": len(self.fanout),
                "viewing": viewing,
                "heartbeat": self.fanout.heartbeat_seconds(),
            }
        )
        held, self.held = self.held, None
        for _, text in held:
            await self.send(text_data=text)

    async def disconnect(self, code: int) -> None:
        """Leave the fan-out, and stop counting as a viewer of the page."""
        self._release()

    def _release(self) -> None:
        """Give back the socket's place under the limits, in the fan-out and among the page's viewers."""
        if self.owner is not None:
            self.limits.release(self.owner)
            self.owner = None
        self.fanout.leave(self)
        if self.page is not None:
            self.presence.leave(self.page)
            self.page = None

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        """Ignore whatever the client sends: this socket only pushes."""

    async def send_update(self, text: str) -> bool:
        """Send one update frame; whether it went out as the bytes encoded once for every socket."""
        return await self._send_frame(text, is_presence=False)

    async def send_presence(self, text: str) -> bool:
        """Send one viewing-now frame; whether it went out as the bytes encoded once for every socket."""
        return await self._send_frame(text, is_presence=True)

    async def _send_frame(self, text: str, *, is_presence: bool) -> bool:
        if self.held is not None:
            self.held.append((is_presence, text))
            return False
        # The snapshot is out (held is None), so the handshake is done and the socket's kind is known.
        writer = self.direct_writer
        if isinstance(text, OutgoingText) and writer is not None and writer.write(text.frame):
            return True
        await self.send(text_data=text)
        return False

    @cached_property
    def direct_writer(self) -> DirectWriter | None:
        """daphne's socket under this consumer, for frames encoded once; None under other servers."""
        return direct_writer(self.base_send)
