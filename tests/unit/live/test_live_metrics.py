"""Live metrics: open sockets go up and down, each socket's update frame is counted, push lag observed."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from counters import services
from counters.metrics import metrics
from tests.support.live import dashboard_socket
from tests.support.metrics import sample


def scraped() -> str:
    return metrics().exposition().decode()


async def next_update(socket) -> dict:
    """The next update frame, skipping any other kind."""
    while True:
        frame = await socket.receive_json_from(timeout=10)
        if frame["type"] == "update":
            return frame


async def test_sockets_frames_and_push_lag_follow_what_the_pages_got(memory_demo_store):
    async with dashboard_socket() as first, dashboard_socket() as second:
        for socket in (first, second):
            await socket.receive_json_from(timeout=10)  # the snapshot
        assert sample(scraped(), "counters_live_sockets") == 2
        await sync_to_async(services.view_record)(slug="welcome")
        for socket in (first, second):
            assert "welcome" in {c["name"] for c in (await next_update(socket))["counters"]}
        text = scraped()
        assert sample(text, "counters_live_frames_total", kind="update") == 2
        assert sample(text, "counters_live_push_lag_seconds_count") == 1
        # The first update of a quiet page goes out at once: well under the 100 ms interval.
        assert 0 < sample(text, "counters_live_push_lag_seconds_sum") < 1
    assert sample(scraped(), "counters_live_sockets") == 0


async def test_a_lost_channel_layer_counts_one_relay_failure(memory_demo_store, settings):
    settings.COUNTERS_HEARTBEAT_SECONDS = 0.2
    # A layer that never hands the relay's heartbeat back: the relay gives up on it.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "tests.support.layers.EcholessLayer"}}
    async with dashboard_socket() as socket:
        assert (await socket.receive_json_from(timeout=10))["type"] == "snapshot"
        assert (await socket.receive_output(timeout=10))["type"] == "websocket.close"
        text = scraped()
    assert sample(text, "counters_live_relay_failures_total") == 1
    assert sample(text, "counters_live_sockets") == 0
