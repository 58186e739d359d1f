"""Fuzzing the dashboard websocket with client frames: ignored, nothing written, updates still flow."""

from __future__ import annotations

import json

from asgiref.sync import sync_to_async
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from counters import services
from tests.support.live import dashboard_socket

FUZZ = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=20), inner, max_size=5),
    max_leaves=20,
)
# Messages a client might try: subscribe/reset/update look-alikes, any JSON, any text, any bytes.
commands = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["subscribe", "update", "snapshot", "reset", "increment", "vote", "ping"]),
        "counters": st.lists(
            st.fixed_dictionaries(
                {"name": st.sampled_from(["docs", "welcome", "language.python"]), "value": st.integers()}
            ),
            max_size=3,
        ),
    }
)
frames = st.lists(
    st.one_of(
        commands.map(lambda value: ("text", json.dumps(value))),
        json_values.map(lambda value: ("text", json.dumps(value))),
        st.text(max_size=4000).map(lambda text: ("text", text)),
        st.binary(max_size=4000).map(lambda data: ("bytes", data)),
    ),
    min_size=1,
    max_size=6,
)


def totals(store) -> dict[str, tuple[int, int]]:
    return {state.name: (state.value, state.version) for state in store.list_counters()}


@FUZZ
@given(sent=frames)
async def test_client_frames_are_ignored_and_updates_still_arrive(memory_demo_store, sent):
    before = await sync_to_async(totals)(memory_demo_store)
    async with dashboard_socket() as socket:
        snapshot = await socket.receive_json_from(timeout=10)
        assert snapshot["type"] == "snapshot"
        for kind, payload in sent:
            # Raw ASGI events, since send_to() refuses empty frames a real client may still send.
            await socket.send_input({"type": "websocket.receive", kind: payload})
        # The consumer neither answers nor closes: the next frame out is the next real update.
        assert await socket.receive_nothing(timeout=0.05)
        assert await sync_to_async(totals)(memory_demo_store) == before, "a client frame wrote something"

        state = await sync_to_async(services.view_record)(slug="docs")

        update = await socket.receive_json_from(timeout=10)
    assert update == {
        "type": "update",
        "counters": [{"name": "docs", "value": state.value, "version": state.version}],
    }
    assert state.value == before["docs"][0] + 1
