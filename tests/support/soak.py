"""Helpers for the soak test: many asyncio websocket clients and a process's resident memory."""

from __future__ import annotations

import asyncio
import json
import threading

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.support.live import WS_PATH


def rss_kib(pid: int) -> int:
    """Resident memory of a process, in KiB, from /proc/<pid>/status (VmRSS)."""
    with open(f"/proc/{pid}/status") as status:
        lines = status.read().splitlines()
    for line in lines:
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


class SocketCrowd:
    """`size` dashboard clients on one asyncio loop in a thread, each keeping its newest state."""

    def __init__(self, base_url: str, size: int) -> None:
        self.url = base_url.replace("http://", "ws://") + WS_PATH
        self.origin = base_url
        self.size = size
        self.known: list[dict[str, tuple[int, int]]] = [{} for _ in range(size)]
        self.connected = 0
        self.dropped = 0
        self.frames = 0
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self.error: BaseException | None = None

    def __enter__(self) -> SocketCrowd:
        self._thread.start()
        if not self._ready.wait(60) or self.error:
            raise AssertionError(f"only {self.connected}/{self.size} sockets connected: {self.error!r}")
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)

    def totals(self, index: int) -> dict[str, int]:
        """What client `index` shows now: newest value per counter."""
        return {name: value for name, (value, _) in self.known[index].items()}

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            await asyncio.gather(*(self._client(i) for i in range(self.size)))
        except BaseException as error:  # surfaced to the test through `error`
            self.error = error
            self._ready.set()

    async def _client(self, index: int) -> None:
        async with connect(self.url, origin=self.origin, open_timeout=30, max_queue=None) as socket:
            self._apply(index, json.loads(await socket.recv()))
            self.connected += 1
            if self.connected == self.size:
                self._ready.set()
            stop = asyncio.create_task(self._stop.wait())
            while not stop.done():
                receive = asyncio.create_task(socket.recv())
                await asyncio.wait({receive, stop}, return_when=asyncio.FIRST_COMPLETED)
                if receive.done():
                    try:
                        self._apply(index, json.loads(receive.result()))
                    except ConnectionClosed:
                        self.dropped += 1
                        return
                else:
                    receive.cancel()

    def _apply(self, index: int, frame: dict) -> None:
        """Keep the highest version per counter, as live.js does."""
        self.frames += 1
        known = self.known[index]
        for counter in frame.get("counters", ()):  # heartbeats and viewing-now frames carry none
            name, version = counter["name"], counter["version"]
            if name not in known or version > known[name][1]:
                known[name] = (counter["value"], version)
