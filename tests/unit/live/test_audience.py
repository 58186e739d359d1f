"""Hidden poll totals never reach an audience socket (snapshot, updates, catalog); staff sockets get them,
and the presenter's reveal pushes them live. Frames are read from the app's own websocket route; the
staff socket's user is put in its scope, where the route's auth middleware leaves a signed-in user."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from asgiref.sync import sync_to_async

from counters import services
from counters.domain.poll_rules import closing_time
from tests.support.live import WS_PATH, app_socket

POLL = "secret"
STAFF = SimpleNamespace(is_active=True, is_staff=True, is_authenticated=True)


@contextlib.asynccontextmanager
async def socket(user=None):
    communicator = app_socket(WS_PATH)
    if user is not None:
        communicator.scope["user"] = user
    connected, _ = await communicator.connect()
    assert connected
    try:
        yield communicator
    finally:
        await communicator.disconnect()


async def frames_until_quiet(communicator, quiet: float = 0.6) -> list[dict]:
    """Every frame the socket receives until it stays silent for `quiet` seconds (heartbeats left out)."""
    frames = []
    # receive_nothing waits without ending the app, as a receive that times out would.
    while not await communicator.receive_nothing(timeout=quiet):
        frame = await communicator.receive_json_from(timeout=5)
        if frame.get("type") != "heartbeat":
            frames.append(frame)
    return frames


def secret_numbers(frames: list[dict]) -> list:
    """Every total of the secret poll the frames carry: its counters' values and its options' votes."""
    found = [c["value"] for f in frames for c in f.get("counters", []) if c["name"].startswith(f"{POLL}.")]
    for frame in frames:
        for poll in frame.get("polls", []):
            if poll["id"] == POLL:
                found += [o["votes"] for o in poll["options"] if "votes" in o] + (
                    [poll["total"]] if "total" in poll else []
                )
    return found


async def test_hidden_totals_reach_staff_sockets_only_until_revealed(demo_store):
    await sync_to_async(services.poll_create)(
        poll_id=POLL, question="Secret?", options=[("a", "A"), ("b", "B")], results="revealed"
    )
    await sync_to_async(demo_store.cast_vote)(POLL, voter="anon:seed", option="a")
    async with socket() as audience, socket(STAFF) as staff:
        audience_snapshot = await audience.receive_json_from(timeout=10)
        staff_snapshot = await staff.receive_json_from(timeout=10)
        assert secret_numbers([audience_snapshot]) == [] and secret_numbers([staff_snapshot]) == [1, 0]
        assert "language.python" in {c["name"] for c in audience_snapshot["counters"]}

        await sync_to_async(services.vote_cast)(poll_id=POLL, voter="anon:v1", option="b")
        await sync_to_async(services.vote_cast)(poll_id="language", voter="anon:v1", option="go")
        audience_frames, staff_frames = await frames_until_quiet(audience), await frames_until_quiet(staff)
        assert secret_numbers(audience_frames) == []
        assert "language.go" in {c["name"] for f in audience_frames for c in f.get("counters", [])}
        assert 1 in secret_numbers(staff_frames)

        await sync_to_async(services.poll_control)(poll_id=POLL, action="reveal")
        revealed = await frames_until_quiet(audience)
        catalog = next(f for f in revealed if f["type"] == "catalog")
        poll = next(p for p in catalog["polls"] if p["id"] == POLL)
        assert poll["results_visible"] is True and [o["votes"] for o in poll["options"]] == [1, 1]
        await sync_to_async(services.vote_cast)(poll_id=POLL, voter="anon:v2", option="a")
        assert 2 in secret_numbers(await frames_until_quiet(audience))

        await sync_to_async(services.poll_control)(poll_id=POLL, action="hide")
        hidden = await frames_until_quiet(audience)
        assert hidden and secret_numbers(hidden) == []
        await sync_to_async(services.vote_cast)(poll_id=POLL, voter="anon:v3", option="a")
        assert secret_numbers(await frames_until_quiet(audience)) == []
        assert 3 in secret_numbers(await frames_until_quiet(staff))


async def test_a_poll_closing_on_its_timer_pushes_its_totals_to_the_audience(demo_store):
    closes_at = closing_time(datetime.now(UTC) + timedelta(seconds=3))
    async with socket() as audience:
        await audience.receive_json_from(timeout=10)
        await sync_to_async(services.poll_create)(
            poll_id=POLL,
            question="Secret?",
            options=[("a", "A"), ("b", "B")],
            results="closed",
            closes_at=closes_at,
        )
        await sync_to_async(services.vote_cast)(poll_id=POLL, voter="anon:v1", option="a")
        before = await frames_until_quiet(audience)
        assert before and secret_numbers(before) == []
        after = await frames_until_quiet(audience, quiet=4)
        poll = next(p for f in after if f["type"] == "catalog" for p in f["polls"] if p["id"] == POLL)
        assert poll["closed"] is True and [o["votes"] for o in poll["options"]] == [1, 0]


async def test_a_poll_filling_its_voters_pushes_its_totals_to_the_audience(demo_store):
    async with socket() as audience:
        await audience.receive_json_from(timeout=10)
        await sync_to_async(services.poll_create)(
            poll_id=POLL, question="Secret?", options=[("a", "A"), ("b", "B")], results="closed", max_voters=2
        )
        await sync_to_async(services.vote_cast)(poll_id=POLL, voter="anon:v1", option="a")
        assert secret_numbers(await frames_until_quiet(audience)) == []
        await sync_to_async(services.vote_cast)(poll_id=POLL, voter="anon:v2", option="b")
        frames = await frames_until_quiet(audience)
        poll = next(p for f in frames if f["type"] == "catalog" for p in f["polls"] if p["id"] == POLL)
        assert poll["closed"] is True and [o["votes"] for o in poll["options"]] == [1, 1]
