"""Hidden poll totals never reach an audience socket (snapshot, updates, catalog); staff sockets get them,
and the presenter's reveal pushes them live. Frames are read from the app's own websocket route; the
staff socket's user is put in its scope, where the route's auth middleware leaves a signed-in user."""

from __future__ import annotations

import contextlib
import time
from datetime import timedelta
from types import SimpleNamespace

from asgiref.sync import sync_to_async

from counters import services
from counters.domain.poll_rules import closing_time
from tests.support.clocks import HeldClock
from tests.support.hidden_totals import leaks
from tests.support.live import WS_PATH, app_socket
from tests.support.timing import scaled

POLL = "secret"
SENTINEL = "docs"  # a demo page whose views mark "everything pushed before this has arrived"
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


async def frames_through_sentinel(*sockets) -> list[list[dict]]:
    """Every frame each socket receives (heartbeats left out) up to the update of a page view counted now:
    whatever was pushed before that view has arrived by then, so what is missing never came."""
    # A page view, not a vote: after a poll change every option total is held back until the next read.
    name = SENTINEL
    expected = (await sync_to_async(services.view_record)(slug=name)).value

    def carries_sentinel(frame: dict) -> bool:
        return any(c.get("name") == name and c.get("value") == expected for c in counters_in([frame]))

    received = []
    for communicator in sockets:
        frames = await frames_until(communicator, carries_sentinel, f"{name} at {expected}", timeout=10)
        received.append([frame for frame in frames if frame.get("type") != "heartbeat"])
    return received


async def frames_until(communicator, found, what: str, *, timeout: float) -> list[dict]:
    """Frames the socket receives until `found(frame)`; fail naming `what` after `timeout` (scaled) s."""
    frames: list[dict] = []
    deadline = time.monotonic() + scaled(timeout)
    while not frames or not found(frames[-1]):
        left = deadline - time.monotonic()
        try:
            assert left > 0
            frames.append(await communicator.receive_json_from(timeout=left))
        except (AssertionError, TimeoutError):
            raise AssertionError(f"no frame with {what} within {scaled(timeout):.0f}s: {frames}") from None
    return frames


async def catalog_where(communicator, holds, what: str, *, timeout: float = 10) -> list[dict]:
    """Frames up to the first catalog frame whose secret poll `holds(poll)`: a poll change's own frame,
    read after the change (until it arrives, the socket holds back every option total)."""

    def found(frame: dict) -> bool:
        polls = frame.get("polls", []) if frame.get("type") == "catalog" else []
        return any(poll["id"] == POLL and holds(poll) for poll in polls)

    return await frames_until(communicator, found, what, timeout=timeout)


async def secret_value_arrives(communicator, value: int) -> list[dict]:
    """Frames up to the first that carries `value` for one of the secret poll's options."""
    return await frames_until(
        communicator, lambda frame: value in secret_values([frame]), f"a secret total of {value}", timeout=10
    )


def names_in(frame: dict) -> set[str]:
    """The names of the counters a frame carries."""
    return {c["name"] for c in frame.get("counters", [])}


def counters_in(frames: list[dict]) -> list[dict]:
    """The counter states the frames carry."""
    return [c for f in frames for c in f.get("counters", [])]


def secret_values(frames: list[dict]) -> list[int]:
    """The values of the secret poll's option counters the frames carry."""
    return [c["value"] for c in counters_in(frames) if c["name"].startswith(f"{POLL}.")]


def secret_poll(frames: list[dict]) -> dict:
    """The secret poll as the last catalog frame among `frames` lists it."""
    catalogs = [f for f in frames if f.get("type") == "catalog"]
    return next(p for p in catalogs[-1]["polls"] if p["id"] == POLL)


async def test_hidden_totals_reach_staff_sockets_only_until_revealed(memory_demo_store):
    await sync_to_async(services.poll_create)(
        poll_id=POLL, question="Secret?", options=[("a", "A"), ("b", "B")], results="revealed"
    )
    await sync_to_async(memory_demo_store.cast_vote)(POLL, voter="anon:seed", option="a")
    async with socket() as audience, socket(STAFF) as staff:
        audience_snapshot = await audience.receive_json_from(timeout=10)
        staff_snapshot = await staff.receive_json_from(timeout=10)
        assert leaks([audience_snapshot], POLL) == [] and secret_values([staff_snapshot]) == [1, 0]
        assert "language.python" in {c["name"] for c in audience_snapshot["counters"]}

        await sync_to_async(services.vote_cast)(poll_id=POLL, voter="anon:v1", option="b")
        await sync_to_async(services.vote_cast)(poll_id="language", voter="anon:v1", option="go")
        # A vote's push may follow a later page view's: wait for the pushes themselves, then the sentinel.
        await secret_value_arrives(staff, 1)
        seen = await frames_until(audience, lambda f: "language.go" in names_in(f), "language.go", timeout=10)
        assert leaks(seen + (await frames_through_sentinel(audience))[0], POLL) == []

        await sync_to_async(services.poll_control)(poll_id=POLL, action="reveal")
        revealed = await catalog_where(audience, lambda poll: poll["results_visible"], "the reveal")
        assert [o["votes"] for o in secret_poll(revealed)["options"]] == [1, 1]
        await sync_to_async(services.vote_cast)(poll_id=POLL, voter="anon:v2", option="a")
        await secret_value_arrives(audience, 2)

        # Hidden again: the hide's own frame, and every vote after it, carry nothing of the totals.
        await sync_to_async(services.poll_control)(poll_id=POLL, action="hide")
        hidden = await catalog_where(audience, lambda poll: not poll["results_visible"], "the hide")
        assert leaks(hidden + (await frames_through_sentinel(audience))[0], POLL) == []
        await sync_to_async(services.vote_cast)(poll_id=POLL, voter="anon:v3", option="a")
        # Pushed to staff, so to every socket: what the audience got of it has arrived by the sentinel.
        await secret_value_arrives(staff, 3)
        assert leaks((await frames_through_sentinel(audience))[0], POLL) == []


async def test_totals_pushed_as_written_keep_hidden_totals_off_the_audience(memory_demo_store):
    # The in-process store pushes a vote's totals as its write left them, with no read: filtered alike.
    await sync_to_async(services.poll_create)(
        poll_id=POLL, question="Secret?", options=[("a", "A"), ("b", "B")], results="revealed"
    )
    async with socket() as audience, socket(STAFF) as staff:
        snapshots = [await audience.receive_json_from(timeout=10), await staff.receive_json_from(timeout=10)]
        await sync_to_async(services.vote_cast)(poll_id=POLL, voter="anon:v1", option="b")
        await secret_value_arrives(staff, 1)
        assert leaks(snapshots[:1] + (await frames_through_sentinel(audience))[0], POLL) == []


async def test_a_poll_closing_on_its_timer_pushes_its_totals_to_the_audience(demo_store, process_runtime):
    clock = process_runtime.give("clock", HeldClock())
    closes_at = closing_time(clock.utc_now() + timedelta(minutes=10))
    async with socket() as audience:
        await audience.receive_json_from(timeout=10)
        await sync_to_async(services.poll_create)(
            poll_id=POLL,
            question="Secret?",
            options=[("a", "A"), ("b", "B")],
            results="closed",
            closes_at=closes_at,
        )
        created = await catalog_where(audience, lambda poll: not poll["closed"], "the new poll")
        await sync_to_async(services.vote_cast)(poll_id=POLL, voter="anon:v1", option="a")
        assert leaks(created + (await frames_through_sentinel(audience))[0], POLL) == []
        clock.advance(10 * 60)  # the closing time, on the server's clock: its timer wakes
        closed = await catalog_where(audience, lambda poll: poll["closed"], "the poll closed")
        assert [o["votes"] for o in secret_poll(closed)["options"]] == [1, 0]


async def test_a_poll_filling_its_voters_pushes_its_totals_to_the_audience(demo_store):
    async with socket() as audience:
        await audience.receive_json_from(timeout=10)
        await sync_to_async(services.poll_create)(
            poll_id=POLL, question="Secret?", options=[("a", "A"), ("b", "B")], results="closed", max_voters=2
        )
        created = await catalog_where(audience, lambda poll: not poll["closed"], "the new poll")
        await sync_to_async(services.vote_cast)(poll_id=POLL, voter="anon:v1", option="a")
        assert leaks(created + (await frames_through_sentinel(audience))[0], POLL) == []
        await sync_to_async(services.vote_cast)(poll_id=POLL, voter="anon:v2", option="b")
        closed = await catalog_where(audience, lambda poll: poll["closed"], "the poll full")
        assert [o["votes"] for o in secret_poll(closed)["options"]] == [1, 1]
