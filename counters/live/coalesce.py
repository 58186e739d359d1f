"""Merge counter updates and pass them on at most once per interval, newest state per counter."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from counters.live.loop import LiveLoop

# name, value, version[, stream sequence]: the app's own writes carry no sequence (""); changes read
# from the table's stream carry theirs, which orders changes that left `version` as it was.
Update = tuple  # (str, int, int) or (str, int, int, str)
Pending = dict[str, tuple[int, int, str]]  # name -> value, version, sequence


def sequence_key(sequence: str) -> tuple[int, str]:
    """Order stream sequence numbers (digit strings of any length); "" comes first."""
    return len(sequence), sequence


def is_newer(candidate: tuple[int, int, str], held: tuple[int, int, str]) -> bool:
    """Whether (value, version, sequence) `candidate` is a later state than `held`.

    A higher version wins. At one version, two changes read from the stream keep the stream's order.
    A state without a sequence (the app's own write, a read) and one from the stream are ordered by
    value: a stream running behind a read brings older changes, which show less; a read made after a
    stream change (a page that reconnects) shows more. Another writer's decrement at that version
    therefore shows once the stream or the next version carries it past what the page holds.
    """
    value, version, sequence = candidate
    held_value, held_version, held_sequence = held
    if version != held_version:
        return version > held_version
    if sequence and held_sequence:
        return sequence_key(sequence) > sequence_key(held_sequence)
    if sequence:
        return value >= held_value
    return bool(held_sequence) and value > held_value


def merge(pending: Pending, updates: Iterable[Update]) -> None:
    """Keep the newest state per counter: writes finish in any order across threads and workers."""
    for name, value, version, *rest in updates:
        state = (value, version, rest[0] if rest else "")
        known = pending.get(name)
        if known is None or is_newer(state, known):
            pending[name] = state


def as_counters(pending: Pending) -> list[dict]:
    """The `counters` list of an update message (`seq` only on changes read from the stream)."""
    return [as_counter(name, *state) for name, state in pending.items()]


def as_counter(name: str, value: int, version: int, sequence: str = "") -> dict:
    """One counter of an update message."""
    counter = {"name": name, "value": value, "version": version}
    if sequence:
        counter["seq"] = sequence
    return counter


class Coalescer:
    """Used on the loop: updates merged per counter, sent through a throttle (loop.py)."""

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
