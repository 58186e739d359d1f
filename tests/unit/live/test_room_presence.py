"""Viewing now for a poll's audience page: its socket counts under `room:<poll>`, and only for a real poll."""

from __future__ import annotations

import pytest

from counters.live.consumers import CLOSE_UNKNOWN_PAGE
from counters.live.presence import presence
from tests.support.live import accepted, dashboard_socket, first_output, ws_path
from tests.unit.live.test_presence import frames_until


async def test_audience_sockets_count_under_their_poll_and_every_socket_hears_it(memory_demo_store):
    async with (
        dashboard_socket() as presenter,
        dashboard_socket(page="room:language"),
        dashboard_socket(page="room:language"),
    ):
        await frames_until(presenter, lambda now: now.get("room:language") == 2)
        assert presence().local() == {"room:language": 2}
    assert presence().local() == {}


@pytest.mark.parametrize("page", ["room:no-such-poll", "room:welcome"])
async def test_a_room_of_no_poll_is_closed_after_the_snapshot_read(memory_demo_store, page):
    closed = await first_output(ws_path(page))
    assert closed == {"type": "websocket.close", "code": CLOSE_UNKNOWN_PAGE}
    assert presence().local() == {}


@pytest.mark.parametrize("page", ["room:", "room:Language", "room:a.b", "room:room:x"])
async def test_a_malformed_room_is_refused_at_the_handshake(memory_demo_store, page):
    assert await accepted(ws_path(page)) is False
