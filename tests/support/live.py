"""Helpers for live-push tests: websocket clients of the app and of site processes, a stand-in broadcaster."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from contextlib import asynccontextmanager
from urllib.parse import urlencode

from channels.testing import WebsocketCommunicator
from websockets.sync.client import ClientConnection, connect

from counters.domain.values import CounterState
from counters_site.asgi import application

WS_PATH = "/ws/counters/"
ALLOWED_ORIGIN = "http://127.0.0.1"


def ws_path(page: str | None = None) -> str:
    """The socket's path, naming the page it shows when given."""
    return WS_PATH if page is None else f"{WS_PATH}?{urlencode({'page': page})}"


def app_socket(path: str = WS_PATH, origin: str = ALLOWED_ORIGIN) -> WebsocketCommunicator:
    """An in-process client of the app's websocket at `path`, from `origin`, not connected yet."""
    return WebsocketCommunicator(application, path, headers=[(b"origin", origin.encode())])


async def accepted(path: str) -> bool:
    """Whether the app accepts a socket at `path` at the handshake (it is disconnected at once)."""
    communicator = app_socket(path)
    connected, _ = await communicator.connect()
    await communicator.disconnect()
    return connected


async def first_output(path: str) -> dict:
    """The first message the app sends a socket at `path` it accepted (asserting it accepted it)."""
    communicator = app_socket(path)
    connected, _ = await communicator.connect()
    try:
        assert connected, f"the app refused a socket at {path}"
        return await communicator.receive_output(timeout=10)
    finally:
        await communicator.disconnect()


@asynccontextmanager
async def dashboard_socket(origin: str = ALLOWED_ORIGIN, *, page: str | None = None):
    """A connected in-process dashboard websocket (showing `page`); always disconnected afterwards."""
    communicator = app_socket(ws_path(page), origin)
    connected, _ = await communicator.connect()
    assert connected, "the dashboard websocket refused the connection"
    try:
        yield communicator
    finally:
        await communicator.disconnect()


def latest(frames: list[dict]) -> dict[str, tuple[int, int]]:
    """Newest (value, version) per counter across frames, keeping the highest version as clients do."""
    known: dict[str, tuple[int, int]] = {}
    for frame in frames:
        for counter in frame.get("counters", []):  # viewing-now frames carry none
            if counter["name"] not in known or counter["version"] > known[counter["name"]][1]:
                known[counter["name"]] = (counter["value"], counter["version"])
    return known


def viewing(frames: list[dict]) -> dict[str, int]:
    """Browsers per page as a page holds them: a snapshot's sums, then each viewing-now frame's changes."""
    known: dict[str, int] = {}
    for frame in frames:
        if frame["type"] == "snapshot":
            known = dict(frame["viewing"])
        elif frame["type"] == "presence":
            known.update(frame["viewing"])
    return {page: count for page, count in known.items() if count}


def site_socket(base_url: str, *, page: str | None = None) -> ClientConnection:
    """A websocket client of a real site process (showing `page`), sending the site's own Origin."""
    ws_url = base_url.replace("http://", "ws://") + ws_path(page)
    return connect(ws_url, origin=base_url, open_timeout=10)


def receive_until(
    socket: ClientConnection, done, *, timeout: float = 15.0, reading=latest, frames: list[dict] | None = None
) -> list[dict]:
    """Frames received (after `frames`) until `done(reading(frames))` holds; fail after `timeout` seconds."""
    frames = [] if frames is None else frames
    deadline = time.monotonic() + timeout
    while not frames or not done(reading(frames)):
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no matching state within {timeout}s; last: {reading(frames)}")
        try:
            frames.append(json.loads(socket.recv(timeout=left)))
        except TimeoutError:
            continue
    return frames


class RecordingBroadcaster:
    """Keeps every state published and every message announced, in order; sends nothing."""

    def __init__(self) -> None:
        self.batches: list[list[CounterState]] = []  # each call's states
        self.states: list[CounterState] = []
        self.triples: list[tuple[str, int, int]] = []  # (name, value, version) of each state
        self.messages: list[dict] = []

    def publish(self, states: Iterable[CounterState]) -> None:
        """Keep the states."""
        batch = list(states)
        self.batches.append(batch)
        for state in batch:
            self.states.append(state)
            self.triples.append((state.name, state.value, state.version))

    async def send_now(self, states: list[CounterState]) -> None:
        """Recorded as a publish: the read-back's states, sent at once."""
        self.publish(states)

    def announce(self, message: dict) -> None:
        """Keep the message."""
        self.messages.append(message)
