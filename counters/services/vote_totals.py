"""The poll totals this process knows, so a vote is answered without a read after its transaction.

What an answer built here promises: every option's total as an exact read found it, that read having
begun at most KNOWN_SECONDS before the vote's transaction was sent, plus this vote's own change and
this process's other votes acknowledged since; never a total below zero. A vote elsewhere meanwhile
may be missing from it (the live push brings it). Each answered state's version is at most the
counter's version after the vote, and a state differs from the true one at its version only if the
counter has moved past it; the read-back that follows every answered vote (live/read_back.py) pushes
the state after the vote, so a page that took the answer ends on the exact totals.

The snapshot is taken before the transaction, so it cannot hold this vote: the answer adds it once.
A guess is kept only until a read of that version or later replaces it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace

from counters.domain.names import option_counter_name
from counters.domain.values import CounterState, VoteChange
from counters.runtime import runtime
from counters.selectors.polls import option_counters

# How old (since its read began) a poll's known totals may be and still answer a vote.
KNOWN_SECONDS = 1.0

Snapshot = dict[str, CounterState]


@dataclass
class _Known:
    """A poll's option totals: when the last exact read of them began, and the newest state of each."""

    read_at: float
    states: Snapshot


class KnownTotals:
    """Thread-safe: the latest option totals of each poll this process read or changed (in one store)."""

    def __init__(self, *, seconds: float | None = None) -> None:
        self._lock = threading.Lock()
        self._polls: dict[str, _Known] = {}
        self._seconds = KNOWN_SECONDS if seconds is None else seconds

    @classmethod
    def for_runtime(cls, process: object) -> KnownTotals:
        """Nothing known yet (a runtime's part, kept per store)."""
        return cls()

    def learn(self, poll_id: str, names: list[str], states: Iterable[CounterState], *, began: float) -> None:
        """Keep what an exact read of `names` found (a missing counter is 0); `began` is time.monotonic()."""
        found = {state.name: state for state in states}
        with self._lock:
            known = self._polls.get(poll_id)
            merged: Snapshot = {}
            for name in names:
                state = found.get(name) or CounterState(name=name, kind="votes", value=0, version=0)
                kept = known.states.get(name) if known else None
                # A guess newer than the read (a vote acknowledged while it ran) holds more; at the same
                # version the read wins, as a guess may be wrong there.
                merged[name] = kept if kept is not None and kept.version > state.version else state
            read_at = max(began, known.read_at) if known else began
            self._polls[poll_id] = _Known(read_at=read_at, states=merged)

    def names(self, poll_id: str) -> list[str]:
        """The option counters last read for a poll (none if it was never read)."""
        with self._lock:
            known = self._polls.get(poll_id)
            return list(known.states) if known else []

    def snapshot(self, poll_id: str) -> Snapshot | None:
        """The poll's totals as known now, if read recently enough to answer a vote; else None."""
        with self._lock:
            known = self._polls.get(poll_id)
            if known is None or time.monotonic() - known.read_at > self._seconds:
                return None
            return dict(known.states)

    def applied(self, change: VoteChange, before: Snapshot) -> Snapshot | None:
        """The poll's totals after an acknowledged `change`, from a snapshot taken before it was sent;
        None if the snapshot misses one of the poll's options. The moved states are kept as guesses."""
        names = option_counters(change.poll)
        if any(name not in before for name in names):
            return None
        after = {name: before[name] for name in names}
        moves = {change.choice: 1, change.previous: -1 if change.lowered else 0} if change.counted else {}
        moved = []
        for option, step in moves.items():
            name = option_counter_name(change.poll.id, option) if option else None
            if name in after and step:
                state = after[name]
                after[name] = replace(state, value=max(state.value + step, 0), version=state.version + 1)
                moved.append(after[name])
        with self._lock:
            known = self._polls.get(change.poll.id)
            for state in moved:
                kept = known.states.get(state.name) if known else None
                if known is not None and (kept is None or state.version > kept.version):
                    known.states[state.name] = state
        return after


def known_totals() -> KnownTotals:
    """The poll totals this process knows of its store."""
    return runtime().known_totals
