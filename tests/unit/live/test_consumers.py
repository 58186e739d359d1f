"""The dashboard websocket on the in-process store: snapshot, updates, coalescing, outages, relay loss."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from counters import conf, selectors, services
from counters.domain.values import CounterState
from counters.exceptions import StoreUnavailable
from counters.live import broadcast
from counters.live.consumers import CLOSE_TRY_AGAIN
from counters.live.fanout import CLOSE_RELAY_LOST, fanout
from counters.live.loop import live_loop
from counters.live.snapshots import SnapshotReader
from counters.metrics import metrics
from counters.runtime import runtime
from counters.store import store_lost
from tests.support.live import dashboard_socket, latest
from tests.support.timing import until, wait_until

BURST = 100
SHARED = 8


def snapshot_of(counter_list) -> Callable[[], list[dict]]:
    """A snapshot read from `counter_list` (a stand-in for selectors.counter_list)."""
    return lambda: [counter.as_dict() for counter in counter_list()]


def update_frames_handed_out() -> float:
    """Update frames the fan-out has handed to sockets so far (its own count, as /metrics shows it)."""
    return metrics().registry.get_sample_value("counters_live_frames_total", {"kind": "update"}) or 0


def state(name: str, value: int, version: int) -> CounterState:
    return CounterState(name=name, kind="views", value=value, version=version)


async def test_snapshot_lists_every_counter(memory_demo_store):
    memory_demo_store.increment("welcome", kind="views")
    async with dashboard_socket() as socket:
        message = await socket.receive_json_from(timeout=10)
    assert message["type"] == "snapshot"
    expected = {s.name: (s.value, s.version) for s in memory_demo_store.list_counters()}
    assert {c["name"]: (c["value"], c["version"]) for c in message["counters"]} == expected
    assert expected["welcome"] == (1, 1)
    assert "language.python" in expected, "poll options are part of the snapshot"


async def test_a_write_reaches_every_socket_as_an_update(memory_demo_store):
    async with dashboard_socket() as first, dashboard_socket() as second:
        for socket in (first, second):
            await socket.receive_json_from(timeout=10)
        await sync_to_async(services.view_record)(slug="docs")
        messages = [await socket.receive_json_from(timeout=10) for socket in (first, second)]
    expected = {"type": "update", "counters": [{"name": "docs", "value": 1, "version": 1}]}
    assert messages == [expected, expected]


async def test_an_update_during_the_snapshot_read_follows_the_snapshot(memory_demo_store, process_runtime):
    listed = selectors.counter_list

    def slow_list():
        counters = listed()
        # A write lands while the snapshot is being read, and its frame is handed to the socket meanwhile.
        broadcast.publish([state("welcome", 1, 1)])
        wait_until(lambda: update_frames_handed_out() >= 1, "the update handed to the socket", timeout=10)
        return counters

    process_runtime.give("snapshots", SnapshotReader(live_loop(), read=snapshot_of(slow_list)))
    async with dashboard_socket() as socket:
        first = await socket.receive_json_from(timeout=10)
        second = await socket.receive_json_from(timeout=10)
    assert first["type"] == "snapshot"
    assert second == {"type": "update", "counters": [{"name": "welcome", "value": 1, "version": 1}]}


async def test_a_burst_of_writes_is_coalesced_into_a_few_frames(memory_demo_store, settings):
    interval = conf.broadcast_interval()
    view = sync_to_async(services.view_record, thread_sensitive=False)
    async with dashboard_socket() as socket:
        await socket.receive_json_from(timeout=10)
        started = time.monotonic()
        await asyncio.gather(*(view(slug="welcome") for _ in range(BURST)))
        frames = [await socket.receive_json_from(timeout=10)]
        while latest(frames)["welcome"] != (BURST, BURST):
            frames.append(await socket.receive_json_from(timeout=10))
        elapsed = time.monotonic() - started
        assert await socket.receive_nothing(timeout=3 * interval), "nothing is sent once the state is out"
    assert all(frame["type"] == "update" for frame in frames)
    # One leading frame, then at most one per interval while writes were arriving.
    print(f"{BURST} writes in {elapsed:.2f}s -> {len(frames)} frames")
    # However slow the writes (a loaded machine), frames are bounded by time, not by the write count.
    assert len(frames) <= 2 + elapsed / interval, (len(frames), elapsed)
    assert frames[-1]["counters"] == [{"name": "welcome", "value": BURST, "version": BURST}]


async def test_states_published_in_one_tick_make_one_frame_with_the_newest(memory_demo_store):
    async with dashboard_socket() as socket:
        await socket.receive_json_from(timeout=10)
        broadcast.publish([state("welcome", 5, 5), state("docs", 1, 1)])
        broadcast.publish([state("welcome", 3, 3)])  # finished later, but older: never sent
        broadcast.publish([state("docs", 2, 2)])
        message = await socket.receive_json_from(timeout=10)
        # A later state as the sentinel: a frame of the older state, had one been sent, comes before it.
        broadcast.publish([state("pricing", 1, 1)])
        sentinel = await socket.receive_json_from(timeout=10)
        assert sentinel["counters"] == [{"name": "pricing", "value": 1, "version": 1}], sentinel
    assert sorted(message["counters"], key=lambda c: c["name"]) == [
        {"name": "docs", "value": 2, "version": 2},
        {"name": "welcome", "value": 5, "version": 5},
    ]


async def test_states_published_from_a_worker_thread_reach_the_socket(memory_demo_store):
    # Django's sync views run in a thread pool under daphne; publish hands over to the loop.
    async with dashboard_socket() as socket:
        await socket.receive_json_from(timeout=10)
        await sync_to_async(broadcast.publish, thread_sensitive=False)([state("pricing", 9, 7)])
        message = await socket.receive_json_from(timeout=10)
    assert message == {"type": "update", "counters": [{"name": "pricing", "value": 9, "version": 7}]}


async def test_sockets_that_connect_during_a_snapshot_read_share_the_next_one(
    memory_demo_store, process_runtime
):
    listed, calls, release = selectors.counter_list, [], threading.Event()

    def counted_list():
        calls.append(len(fanout()))
        if len(calls) == 1:
            release.wait(10)  # the first read stays open until every socket has joined
        return listed()

    process_runtime.give("snapshots", SnapshotReader(live_loop(), read=snapshot_of(counted_list)))
    async with contextlib.AsyncExitStack() as stack:
        first = await stack.enter_async_context(dashboard_socket())
        await until(lambda: calls, "the first snapshot read", timeout=10)
        others = [await stack.enter_async_context(dashboard_socket()) for _ in range(SHARED)]
        release.set()
        messages = [await socket.receive_json_from(timeout=10) for socket in [first, *others]]
    assert [message["type"] for message in messages] == ["snapshot"] * (SHARED + 1)
    # One read for the first socket, one (started after all of them joined) for the rest.
    assert calls == [1, SHARED + 1]


async def test_a_foreign_origin_is_refused(memory_demo_store):
    with pytest.raises(AssertionError, match="refused"):
        async with dashboard_socket(origin="http://evil.example"):
            pass


async def test_a_store_outage_closes_the_socket_so_the_client_retries(memory_demo_store, process_runtime):
    def down():
        raise StoreUnavailable("down")

    process_runtime.give("snapshots", SnapshotReader(live_loop(), read=down))
    async with dashboard_socket() as socket:
        message = await socket.receive_output(timeout=10)
    assert message == {"type": "websocket.close", "code": CLOSE_TRY_AGAIN}


async def test_a_lost_store_closes_open_sockets_so_clients_show_counts_unavailable(memory_demo_store):
    async with dashboard_socket() as socket:
        assert (await socket.receive_json_from(timeout=10))["type"] == "snapshot"
        # As the embedded store's supervisor does, from its own thread, when DynamoDB Local died.
        await asyncio.to_thread(store_lost, runtime())
        message = await socket.receive_output(timeout=10)
    assert message == {"type": "websocket.close", "code": CLOSE_TRY_AGAIN}


async def test_messages_from_many_workers_are_coalesced_again_for_each_page(memory_demo_store, settings):
    # Each worker coalesces its own writes; the relay merges what all of them send.
    layer, interval = get_channel_layer(), conf.broadcast_interval()
    async with dashboard_socket() as socket:
        await socket.receive_json_from(timeout=10)
        started = time.monotonic()
        for version in range(1, 21):
            counters = [{"name": "welcome", "value": version, "version": version}]
            await layer.group_send(
                broadcast.GROUP_NAME, {"type": broadcast.UPDATE_EVENT, "counters": counters}
            )
        frames = [await socket.receive_json_from(timeout=10)]
        while latest(frames)["welcome"] != (20, 20):
            frames.append(await socket.receive_json_from(timeout=10))
        elapsed = time.monotonic() - started
    assert len(frames) <= 2 + elapsed / interval, (len(frames), elapsed)
    assert frames[-1]["counters"] == [{"name": "welcome", "value": 20, "version": 20}]


async def test_a_failed_group_send_is_retried_with_the_newest_states(memory_demo_store, monkeypatch, caplog):
    layer = get_channel_layer()
    real_send, calls = layer.group_send, []

    async def flaky(group, message):
        calls.append(message)
        if len(calls) == 1:
            raise ConnectionError("layer blip")
        await real_send(group, message)

    async with dashboard_socket() as socket:
        await socket.receive_json_from(timeout=10)
        monkeypatch.setattr(layer, "group_send", flaky)
        broadcast.publish([state("docs", 1, 1)])
        await asyncio.sleep(0)  # the first send fails; a newer state comes before the retry
        broadcast.publish([state("docs", 2, 2), state("welcome", 1, 1)])
        message = await socket.receive_json_from(timeout=10)
    assert len(calls) == 2
    assert sorted(message["counters"], key=lambda c: c["name"]) == [
        {"name": "docs", "value": 2, "version": 2},
        {"name": "welcome", "value": 1, "version": 1},
    ]
    assert "layer blip" in caplog.text


async def test_sockets_are_closed_when_the_relay_loses_the_layer(memory_demo_store, monkeypatch):
    layer = get_channel_layer()

    async def broken(channel):
        raise ConnectionError("layer gone")

    async with dashboard_socket() as socket:
        await socket.receive_json_from(timeout=10)
        # The relay is waiting on a receive already; the next one fails, after this update.
        monkeypatch.setattr(layer, "receive", broken)
        broadcast.publish([state("docs", 1, 1)])
        assert (await socket.receive_json_from(timeout=10))["type"] == "update"
        closed = await socket.receive_output(timeout=10)
    assert closed == {"type": "websocket.close", "code": CLOSE_RELAY_LOST}


def test_publish_never_raises_into_the_request(caplog):
    broadcast.publish([object()])  # not a CounterState: logged, not raised
    assert "Could not queue counter updates" in caplog.text


async def test_the_snapshot_says_how_many_live_pages_this_process_serves(memory_demo_store):
    async with dashboard_socket() as first:
        assert (await first.receive_json_from(timeout=10))["open"] == 1
        async with dashboard_socket() as second:
            assert (await second.receive_json_from(timeout=10))["open"] == 2
