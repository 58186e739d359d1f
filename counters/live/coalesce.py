"""Merge counter updates and pass them on at most once per interval, newest version per counter."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from counters.live.loop import LiveLoop

Update = tuple[str, int, int]  # name, value, version
Pending = dict[str, tuple[int, int]]  # name -> value, version


def merge(pending: Pending, updates: Iterable[Update]) -> None:
    """Keep the highest version per counter: writes finish in any order across threads and workers."""
    for name, value, version in updates:
        known = pending.get(name)
        if known is None or version > known[1]:
            pending[name] = (value, version)


def as_counters(pending: Pending) -> list[dict]:
    """The `counters` list of an update message."""
    return [{"name": name, "value": value, "version": version} for name, (value, version) in pending.items()]


class Coalescer:
    """Used on the live loop: updates merged per counter, sent through a throttle (loop.py)."""

    def __init__(
        self,
        live: LiveLoop,
        send: Callable[[Pending], Awaitable[None]],
        *,
        interval: Callable[[], float],
        what: str,
        busy_share: float | None = None,
    ) -> None:
        self._send = send
        self._pending: Pending = {}
        self._throttle = live.throttle(
            self._send_pending, interval=interval, what=what, busy_share=busy_share
        )

    def add(self, updates: Iterable[Update]) -> None:
        """Merge updates (call on the loop); the throttle passes them on."""
        merge(self._pending, updates)
        if self._pending:
            self._throttle.poke()

    async def _send_pending(self) -> None:
        pending, self._pending = self._pending, {}
        if not pending:
            return
        try:
            await self._send(pending)
        except Exception:
            # Put the states back (newer ones that came meanwhile win) so nothing stays stale.
            merge(self._pending, [(name, *state) for name, state in pending.items()])
            raise
