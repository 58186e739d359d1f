"""The heartbeat: pages hear the relay's beat; a relay whose beats stop coming back closes its sockets."""

from __future__ import annotations

import time

import pytest
from channels.layers import get_channel_layer

from counters.live.fanout import CLOSE_RELAY_LOST
from tests.support.live import dashboard_socket

BEAT = 0.2


async def test_a_page_hears_the_beat_the_snapshot_announces(memory_demo_store, settings):
    settings.COUNTERS_HEARTBEAT_SECONDS = BEAT
    async with dashboard_socket() as socket:
        snapshot = await socket.receive_json_from(timeout=10)
        assert snapshot["heartbeat"] == BEAT
        beats = [await socket.receive_json_from(timeout=10) for _ in range(3)]
    assert beats == [{"type": "heartbeat"}] * 3


@pytest.mark.parametrize("layer", ["EcholessLayer", "FullLayer"])
async def test_a_relay_whose_beats_stop_coming_back_closes_its_sockets(
    memory_demo_store, settings, caplog, layer
):
    settings.COUNTERS_HEARTBEAT_SECONDS = BEAT
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": f"tests.support.layers.{layer}"}}
    async with dashboard_socket() as socket:
        assert (await socket.receive_json_from(timeout=10))["type"] == "snapshot"
        started = time.monotonic()
        closed = await socket.receive_output(timeout=10)
        took = time.monotonic() - started
    assert closed == {"type": "websocket.close", "code": CLOSE_RELAY_LOST}
    assert took < 10 * BEAT, f"closed {took:.1f} s after the last beat came back"
    assert caplog.text.count("Live push lost the channel layer") == 1


async def test_once_the_layer_answers_again_a_new_socket_gets_a_new_relay(
    memory_demo_store, settings, caplog
):
    settings.COUNTERS_HEARTBEAT_SECONDS = BEAT
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "tests.support.layers.EcholessLayer"}}
    async with dashboard_socket() as socket:
        await socket.receive_json_from(timeout=10)
        assert (await socket.receive_output(timeout=10))["code"] == CLOSE_RELAY_LOST
    get_channel_layer().silent = False
    async with dashboard_socket() as socket:
        assert (await socket.receive_json_from(timeout=10))["type"] == "snapshot"
        assert await socket.receive_json_from(timeout=10) == {"type": "heartbeat"}
    assert "the channel layer answers again" in caplog.text


async def test_no_heartbeat_when_it_is_set_to_zero(memory_demo_store, settings):
    settings.COUNTERS_HEARTBEAT_SECONDS = 0
    async with dashboard_socket() as socket:
        snapshot = await socket.receive_json_from(timeout=10)
        assert snapshot["heartbeat"] == 0, "the page then runs no silence check either"
        assert await socket.receive_nothing(timeout=5 * BEAT)
