"""Channel layers with a fault, named in CHANNEL_LAYERS by tests."""

from __future__ import annotations

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer

from counters.live.heartbeat import HEARTBEAT_EVENT


class EcholessLayer(InMemoryChannelLayer):
    """Carries every message but the relay's heartbeat while `silent`: a layer gone quiet, sockets open."""

    silent = True

    async def send(self, channel: str, message: dict) -> None:
        """Drop heartbeats while silent; pass the rest on."""
        if not (self.silent and message.get("type") == HEARTBEAT_EVENT):
            await super().send(channel, message)


class FullLayer(InMemoryChannelLayer):
    """Refuses the relay's heartbeat as a full channel does (channels' ChannelFull)."""

    async def send(self, channel: str, message: dict) -> None:
        """Raise ChannelFull for heartbeats; pass the rest on."""
        if message.get("type") == HEARTBEAT_EVENT:
            raise ChannelFull(channel)
        await super().send(channel, message)
