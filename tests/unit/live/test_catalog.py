"""Poll changes and new counters reach open pages as one catalog frame per change, read once per process."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from counters import services
from counters.domain.values import CounterState
from counters.live import broadcast, catalog
from counters.live.fanout import LocalFanout
from counters.live.loop import live_loop
from tests.support.live import dashboard_socket
from tests.support.timing import until


async def next_of_type(socket, kind: str) -> dict:
    """The next frame of `kind`, skipping updates that come before it."""
    while True:
        frame = await socket.receive_json_from(timeout=10)
        if frame["type"] == kind:
            return frame


async def test_closing_a_poll_sends_open_pages_the_polls_as_they_are_now(memory_demo_store):
    async with dashboard_socket() as first, dashboard_socket() as second:
        for socket in (first, second):
            await socket.receive_json_from(timeout=10)
        await sync_to_async(services.poll_set_closed)(poll_id="deploy", closed=True)
        for socket in (first, second):
            frame = await next_of_type(socket, "catalog")
            polls = {poll["id"]: poll for poll in frame["polls"]}
            assert polls["deploy"]["closed"] is True and polls["language"]["closed"] is False
            assert "welcome" in {counter["name"] for counter in frame["counters"]}


async def test_a_new_poll_and_option_reach_open_pages_with_their_counters(memory_demo_store):
    async with dashboard_socket() as socket:
        await socket.receive_json_from(timeout=10)
        await sync_to_async(services.poll_create)(
            poll_id="editor", question="Which editor?", options=[("vim", "Vim"), ("emacs", "Emacs")]
        )
        frame = await next_of_type(socket, "catalog")
        assert [o["label"] for o in {p["id"]: p for p in frame["polls"]}["editor"]["options"]] == [
            "Vim",
            "Emacs",
        ]
        assert {"editor.vim", "editor.emacs"} <= {counter["name"] for counter in frame["counters"]}
        await sync_to_async(services.poll_add_option)(poll_id="editor", option_id="helix", label="Helix")
        frame = await next_of_type(socket, "catalog")
        assert "helix" in [o["id"] for o in {p["id"]: p for p in frame["polls"]}["editor"]["options"]]


async def test_a_catalog_that_cannot_be_read_leaves_pages_as_they_are(
    memory_demo_store, process_runtime, caplog
):
    def broken() -> str:
        raise OSError("store down")

    process_runtime.give("fanout", LocalFanout(live_loop(), read_catalog=broken))
    async with dashboard_socket() as socket:
        await socket.receive_json_from(timeout=10)
        catalog.publish_catalog()
        await until(lambda: "Could not read the catalog" in caplog.text, "the failed read", timeout=10)
        # A later update as the sentinel: a catalog frame, had one been sent, comes before it.
        broadcast.publish([CounterState(name="welcome", kind="views", value=7, version=7)])
        frame = await socket.receive_json_from(timeout=10)
        assert frame == {"type": "update", "counters": [{"name": "welcome", "value": 7, "version": 7}]}, frame
