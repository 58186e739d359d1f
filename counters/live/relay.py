"""One subscription of this process to the live group: its channel, its messages and its heartbeat.

The fan-out (fanout.py) holds the sockets and starts a relay when the first one joins. The relay joins
the group, hands every message to `dispatch`, and beats through the layer (heartbeat.py). When the
layer fails or falls silent it calls `lost` once and ends; the fan-out then closes the relay's
sockets, and the next socket to join starts a new relay.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from channels.layers import BaseChannelLayer

from counters.live.broadcast import GROUP_NAME
from counters.live.heartbeat import Heartbeat

# Layers forget group members after a day (group_expiry); the relay renews its membership well before.
RENEW_SECONDS = 600.0
# How long joining the group may take (a half-open Redis connection must not hold the relay forever).
JOIN_SECONDS = 5.0
# How long the relay waits to leave the group when cancelled (a paused layer must not hold it).
LEAVE_SECONDS = 1.0


async def next_message(layer: BaseChannelLayer, channel: str) -> dict:
    """The relay's next group message; its membership is renewed while the group is quiet."""
    while True:
        try:
            message = await asyncio.wait_for(layer.receive(channel), RENEW_SECONDS)
        except TimeoutError:
            await layer.group_add(GROUP_NAME, channel)
            continue
        if asyncio.current_task().cancelling():
            # Python 3.11's wait_for returns a message that arrived as the relay was cancelled (loop
            # shutdown) and swallows the cancellation: honour it here.
            raise asyncio.CancelledError
        return message


class Relay:
    """Used on the live loop: the group's messages for this process, until the layer fails or is silent."""

    def __init__(
        self,
        layer: BaseChannelLayer,
        *,
        dispatch: Callable[[dict], None],
        lost: Callable[[Relay, str], None],
        beat_seconds: float,
    ) -> None:
        self._layer = layer
        self._dispatch = dispatch
        self._lost = lost
        self._beat_seconds = beat_seconds
        self.joined: asyncio.Future = asyncio.get_running_loop().create_future()
        self._heartbeat: Heartbeat | None = None
        self._task: asyncio.Task | None = None

    def start(self, start_task: Callable[..., asyncio.Task]) -> Relay:
        """Run the relay as a task made by `start_task` (a fresh context: it outlives the socket)."""
        self._task = start_task(self._run())
        return self

    def running(self) -> bool:
        """Whether the relay still serves (it has not ended or been given up)."""
        return self._task is not None and not self._task.done()

    def echoed(self) -> None:
        """Our own heartbeat came back through the layer."""
        if self._heartbeat is not None:
            self._heartbeat.echoed()

    def cancel(self) -> None:
        """Stop the relay (on the loop)."""
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        channel = beat = None
        try:
            channel = await asyncio.wait_for(self._layer.new_channel(), JOIN_SECONDS)
            await asyncio.wait_for(self._layer.group_add(GROUP_NAME, channel), JOIN_SECONDS)
            self.joined.set_result(None)
            beat = self._start_heartbeat(channel)
            while True:
                self._dispatch(await next_message(self._layer, channel))
        except asyncio.CancelledError:
            if channel is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self._layer.group_discard(GROUP_NAME, channel), LEAVE_SECONDS)
            raise
        except Exception as exc:
            if not self.joined.done():
                self.joined.set_exception(exc)
            self._lost(self, f"the relay failed: {exc!r}")
        finally:
            if beat is not None:
                beat.cancel()

    def _start_heartbeat(self, channel: str) -> asyncio.Task | None:
        """Beat through the layer to our own channel (0 seconds: no heartbeat)."""
        if self._beat_seconds <= 0:
            return None
        self._heartbeat = Heartbeat(
            send=lambda message: self._layer.send(channel, message), interval=self._beat_seconds
        )
        beat = asyncio.get_running_loop().create_task(self._heartbeat.run())
        beat.add_done_callback(self._beat_ended)
        return beat

    def _beat_ended(self, beat: asyncio.Task) -> None:
        """The beat stops only when the echoes stopped (or it failed): the layer is lost to this relay."""
        if beat.cancelled() or not self.running():
            return
        failure = beat.exception()
        if failure is not None:
            self._lost(self, f"the heartbeat failed: {failure!r}")
        else:
            self._lost(self, f"no heartbeat came back for {self._heartbeat.silent_for():.0f} s")
        self.cancel()
