"""Helpers for live-push tests: websocket clients of the ASGI app and of real site processes."""

from __future__ import annotations

import json
import time
from contextlib import asynccontextmanager

from channels.testing import WebsocketCommunicator
from websockets.sync.client import ClientConnection, connect

from counters_site.asgi import application

WS_PATH = "/ws/counters/"
ALLOWED_ORIGIN = "http://127.0.0.1"


@asynccontextmanager
async def dashboard_socket(origin: str = ALLOWED_ORIGIN):
    """A connected in-process dashboard websocket; always disconnected afterwards."""
    communicator = WebsocketCommunicator(application, WS_PATH, headers=[(b"origin", origin.encode())])
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
        for counter in frame["counters"]:
            if counter["name"] not in known or counter["version"] > known[counter["name"]][1]:
                known[counter["name"]] = (counter["value"], counter["version"])
    return known


def site_socket(base_url: str) -> ClientConnection:
    """A websocket client of a real site process, sending the site's own Origin."""
    ws_url = base_url.replace("http://", "ws://") + WS_PATH
    return connect(ws_url, origin=base_url, open_timeout=10)


def receive_until(socket: ClientConnection, done, *, timeout: float = 15.0) -> list[dict]:
    """Frames received until `done(latest(frames))` holds; fail after `timeout` seconds."""
    frames: list[dict] = []
    deadline = time.monotonic() + timeout
    while not frames or not done(latest(frames)):
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no matching state within {timeout}s; last: {latest(frames)}")
        try:
            frames.append(json.loads(socket.recv(timeout=left)))
        except TimeoutError:
            continue
    return frames
