"""Websocket clients for the benchmarks: many held open at once, each handing every frame to a reader."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from websockets.asyncio.client import connect


async def hold_open(
    url: str, origin: str, take: Callable[[str], None], stop: asyncio.Event, gate: asyncio.Semaphore
) -> None:
    """Connect (at most `gate` connecting at once), pass every frame to `take` until `stop`, then close."""
    async with gate:
        ws = await connect(url, origin=origin, open_timeout=60, ping_interval=None, max_queue=None)
    async with ws:
        reader = asyncio.ensure_future(_read(ws, take))
        await stop.wait()
        reader.cancel()


async def _read(ws, take: Callable[[str], None]) -> None:
    async for raw in ws:
        take(raw)
