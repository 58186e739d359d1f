"""Viewing now in one process: sockets name their page, every socket hears the sums, bad pages refused."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from counters import conf
from counters.live.consumers import CLOSE_UNKNOWN_PAGE
from counters.live.presence import moved, presence
from tests.support.live import accepted, dashboard_socket, first_output, viewing, ws_path

CROWD = 20


async def frames_until(socket, done, *, timeout: float = 5.0, frames: list[dict] | None = None) -> list[dict]:
    """Frames received (after `frames`) until the viewing-now sums they carry satisfy `done`."""
    frames = [] if frames is None else frames
    deadline = time.monotonic() + timeout
    while not frames or not done(viewing(frames)):
        left = deadline - time.monotonic()
        assert left > 0, f"no matching viewing-now sums within {timeout}s; last: {viewing(frames)}"
        frames.append(await socket.receive_json_from(timeout=left))
    return frames


def test_moved_names_the_pages_whose_number_changed():
    assert moved({"a": 2, "b": 1}, {"a": 2, "c": 4}) == {"b": 0, "c": 4}
    assert moved({}, {}) == {}


async def test_each_socket_counts_for_its_page_and_every_socket_hears_the_sums(memory_demo_store):
    async with contextlib.AsyncExitStack() as stack:
        board = await stack.enter_async_context(dashboard_socket(page="dashboard"))
        snapshot = await board.receive_json_from(timeout=10)
        assert snapshot["type"] == "snapshot" and "viewing" in snapshot
        readers = [await stack.enter_async_context(dashboard_socket(page="welcome")) for _ in range(2)]
        await stack.enter_async_context(dashboard_socket(page="docs"))
        listener = await stack.enter_async_context(dashboard_socket())  # names no page: counts nowhere

        expected = {"dashboard": 1, "welcome": 2, "docs": 1}
        await frames_until(board, lambda now: now == expected)
        heard = await frames_until(listener, lambda now: now == expected)
        assert heard[0]["type"] == "snapshot"
        assert presence().local() == expected

        await readers[0].disconnect()
        await frames_until(board, lambda now: now.get("welcome") == 1, frames=[*heard])
    assert presence().local() == {}, "every closed socket stopped counting"


async def test_the_api_tells_how_many_view_a_page_now(memory_demo_store):
    client = Client()
    async with dashboard_socket(page="welcome") as first, dashboard_socket(page="welcome") as second:
        await frames_until(first, lambda now: now.get("welcome") == 2)
        await frames_until(second, lambda now: now.get("welcome") == 2)
        page = await sync_to_async(client.get)("/api/counters/welcome")
        poll_option = await sync_to_async(client.get)("/api/counters/language.python")
    assert page.json()["viewing_now"] == 2
    assert "viewing_now" not in poll_option.json(), "only pages are viewed"
    assert (await sync_to_async(client.get)("/api/counters/docs")).json()["viewing_now"] == 0


async def test_a_new_socket_gets_the_sums_in_its_snapshot(memory_demo_store):
    async with dashboard_socket(page="docs") as first:
        await frames_until(first, lambda now: now == {"docs": 1})
        async with dashboard_socket() as second:
            snapshot = await second.receive_json_from(timeout=10)
    assert snapshot["viewing"] == {"docs": 1}


@pytest.mark.parametrize("query", ["page=UPPER", "page=", "page=a%2Fb", "page=docs&page=welcome"])
async def test_a_malformed_page_is_refused_at_the_handshake(memory_demo_store, query):
    assert await accepted(f"/ws/counters/?{query}") is False
    assert presence().local() == {}


@pytest.mark.parametrize("page", ["no-such-page", "language.python"])
async def test_a_name_that_is_no_page_is_closed_after_the_snapshot_read(memory_demo_store, page):
    closed = await first_output(ws_path(page))
    assert closed == {"type": "websocket.close", "code": CLOSE_UNKNOWN_PAGE}
    assert presence().local() == {}


async def test_a_crowd_arriving_at_once_is_coalesced_into_a_few_frames(memory_demo_store):
    interval = conf.broadcast_interval()
    async with dashboard_socket(page="dashboard") as board:
        frames = [await board.receive_json_from(timeout=10)]
        await frames_until(board, lambda now: now == {"dashboard": 1}, frames=frames)
        async with contextlib.AsyncExitStack() as stack:
            started = time.monotonic()
            await asyncio.gather(
                *(stack.enter_async_context(dashboard_socket(page="welcome")) for _ in range(CROWD))
            )
            count_before = len(frames)
            await frames_until(board, lambda now: now.get("welcome") == CROWD, frames=frames)
            elapsed = time.monotonic() - started
            crowd_frames = frames[count_before:]
            assert await board.receive_nothing(timeout=3 * interval)
    print(f"{CROWD} sockets in {elapsed:.2f}s -> {len(crowd_frames)} viewing-now frames")
    assert all(frame["type"] == "presence" for frame in crowd_frames)
    assert len(crowd_frames) <= 2 + elapsed / interval, (len(crowd_frames), elapsed)


async def test_the_dashboard_counts_as_viewed_on_a_table_without_its_counter(memory_store):
    async with dashboard_socket(page="dashboard") as board:
        snapshot = await board.receive_json_from(timeout=10)
        assert snapshot["type"] == "snapshot" and snapshot["counters"] == []
        frames = await frames_until(board, lambda sums: sums.get("dashboard") == 1)
        assert all(frame["type"] != "websocket.close" for frame in frames)
    assert presence().local() == {}
