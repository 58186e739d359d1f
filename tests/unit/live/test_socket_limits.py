"""Live sockets per address and per browser are bounded, so one script cannot inflate "viewing now"."""

from __future__ import annotations

import asyncio
import contextlib
import threading

from channels.testing import WebsocketCommunicator
from django.http import HttpResponse

from counters import conf
from counters.live.fanout import fanout
from counters.live.loop import live_loop
from counters.live.presence import presence
from counters.live.snapshots import SnapshotReader
from counters.live.socket_limits import VOTER_COOKIE_SALT
from counters.runtime import runtime
from counters.web.http import voters
from counters_site.asgi import application
from tests.support.live import ALLOWED_ORIGIN, app_socket, ws_path
from tests.support.timing import scaled, until

PER_ADDRESS = 4
PER_VOTER = 2


def signed_voter_cookie(voter: str) -> str:
    """A voter cookie as the site signs it."""
    response = HttpResponse()
    response.set_signed_cookie(conf.voter_cookie(), voter, salt=voters.COOKIE_SALT)
    return f"{conf.voter_cookie()}={response.cookies[conf.voter_cookie()].value}"


async def open_socket(stack, *, address: str, cookie: str | None = None, page: str = "welcome") -> bool:
    """Try a socket from `address` (with a cookie); True if the site accepted it (closed at the end)."""
    headers = [(b"origin", ALLOWED_ORIGIN.encode())]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    communicator = WebsocketCommunicator(application, ws_path(page), headers=headers)
    communicator.scope["client"] = (address, 50000)
    connected, _ = await communicator.connect()
    if connected:
        stack.push_async_callback(communicator.disconnect)
        assert (await communicator.receive_json_from(timeout=10))["type"] == "snapshot"
    return connected


def test_the_socket_limits_read_the_cookie_the_site_signs():
    assert voters.COOKIE_SALT == VOTER_COOKIE_SALT


async def test_an_address_opens_its_share_at_most_and_viewing_now_stays_within(memory_demo_store, settings):
    settings.COUNTERS_SOCKETS_PER_ADDRESS = PER_ADDRESS
    async with contextlib.AsyncExitStack() as stack:
        accepted = [await open_socket(stack, address="198.51.100.7") for _ in range(PER_ADDRESS + 3)]
        other = await open_socket(stack, address="198.51.100.8")
        assert accepted == [True] * PER_ADDRESS + [False] * 3
        assert other, "another address is not held back"
        assert presence().local() == {"welcome": PER_ADDRESS + 1}
    assert presence().local() == {}
    async with contextlib.AsyncExitStack() as stack:
        assert await open_socket(stack, address="198.51.100.7"), "closed sockets free their places"


async def test_one_browser_opens_at_most_its_share_of_its_address(memory_demo_store, settings):
    settings.COUNTERS_SOCKETS_PER_ADDRESS = PER_ADDRESS
    settings.COUNTERS_SOCKETS_PER_VOTER = PER_VOTER
    tab, other_tab = signed_voter_cookie("anon:" + "a" * 32), signed_voter_cookie("anon:" + "b" * 32)
    async with contextlib.AsyncExitStack() as stack:
        same_browser = [
            await open_socket(stack, address="198.51.100.9", cookie=tab) for _ in range(PER_VOTER + 1)
        ]
        another_browser = await open_socket(stack, address="198.51.100.9", cookie=other_tab)
        forged = await open_socket(stack, address="198.51.100.9", cookie=f"{conf.voter_cookie()}=anon:forged")
    assert same_browser == [True] * PER_VOTER + [False]
    assert another_browser, "people behind one address each have their own allowance"
    assert forged, "a cookie that fails its signature counts as no cookie, under the address's limit"


async def test_a_connect_cancelled_during_its_snapshot_read_gives_back_its_place(memory_demo_store, settings):
    settings.COUNTERS_SOCKETS_PER_ADDRESS = 1
    release, reading = threading.Event(), threading.Event()

    def slow_snapshot() -> list[dict]:
        reading.set()
        release.wait(10)
        return []

    runtime().give("snapshots", SnapshotReader(live_loop(), read=slow_snapshot))
    leaving = app_socket(ws_path())
    leaving.scope["client"] = ("198.51.100.10", 50000)
    await leaving.send_input({"type": "websocket.connect"})
    # Admitted and joined, waiting on the snapshot.
    await until(lambda: reading.is_set() and len(fanout()) == 1, "the snapshot read", timeout=5)
    leaving.future.cancel()  # the server gives up on a client that left mid-connect
    await asyncio.wait([leaving.future], timeout=scaled(5))
    assert leaving.future.done()
    release.set()
    assert len(fanout()) == 0
    runtime().give("snapshots", SnapshotReader(live_loop()))
    async with contextlib.AsyncExitStack() as stack:
        assert await open_socket(stack, address="198.51.100.10"), "the cancelled connect's place is free"
