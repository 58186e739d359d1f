"""Channel layers with a fault, named in CHANNEL_LAYERS by tests."""

from __future__ import annotations

from channels.layers import InMemoryChannelLayer

from counters.live.heartbeat import HEARTBEAT_EVENT


class EcholessLayer(InMemoryChannelLayer):
    """Carries every message but the relay's heartbeat: a layer gone silent while sockets stay open."""

    async def send(self, channel: str, message: dict) -> None:
        """Drop heartbeats; pass the rest on."""
        if message.get("type") != HEARTBEAT_EVENT:
            await super().send(channel, message)
