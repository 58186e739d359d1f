"""What one process remembers between votes, so a vote can go straight to its transaction.

A vote's transaction checks everything it depends on (the poll open, the voter's record at the
revision assumed, the option's total existing), so the guess it starts from need not be read first:
a wrong guess makes DynamoDB cancel the transaction, which changes nothing, and the vote is then
taken again from a consistent read. Guessed are the poll's definition (kept POLL_SECONDS) and the
voter's record: the one this process last wrote or read, or "no record" for a voter it never saw,
which is what most votes are (a first vote). Nothing refused is refused on a guess alone.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import NamedTuple

from counters.domain.values import PollDefinition, VoteChange, VoterRecord

# How long a poll's definition is trusted as a guess (a new option shows in answers after this).
POLL_SECONDS = 5.0
# Voters remembered per process (least recently voting forgotten first); about 150 bytes each.
VOTERS = 100_000
NO_RECORD = VoterRecord(option=None, rev=0)


class VoteBasis(NamedTuple):
    """What a vote is decided from: the poll's definition and the voter's record in it."""

    poll: PollDefinition
    record: VoterRecord


class VoteMemory:
    """Thread-safe guesses of poll definitions and voter records for this process's vote transactions."""

    def __init__(self, *, poll_seconds: float = POLL_SECONDS, voters: int = VOTERS) -> None:
        self._lock = threading.Lock()
        self._polls: dict[str, tuple[float, PollDefinition]] = {}
        # None: the voter's last change may or may not have committed (its answer was lost): read first.
        self._voters: OrderedDict[tuple[str, str], VoterRecord | None] = OrderedDict()
        self._poll_seconds = poll_seconds
        self._voter_limit = voters

    def guess(self, poll_id: str, voter: str) -> VoteBasis | None:
        """The poll and voter record to try first, or None when the poll must be read."""
        with self._lock:
            kept = self._polls.get(poll_id)
            if kept is None or time.monotonic() - kept[0] > self._poll_seconds:
                return None
            record = self._voters.get((poll_id, voter), NO_RECORD)
            return None if record is None else VoteBasis(kept[1], record)

    def read(self, poll: PollDefinition, voter: str, record: VoterRecord) -> None:
        """Remember what a consistent read found."""
        with self._lock:
            self._polls[poll.id] = (time.monotonic(), poll)
            self._remember(poll.id, voter, record)

    def voted(self, change: VoteChange, record: VoterRecord) -> None:
        """Remember the voter's record as a committed change from `record` left it."""
        if change.counted:
            with self._lock:
                after = VoterRecord(
                    change.record_option, record.rev + 1, change.picks or frozenset(), change.poll.resets
                )
                self._remember(change.poll.id, change.voter, after)

    def forget(self, poll_id: str, voter: str) -> None:
        """Drop a voter's record that turned out wrong."""
        with self._lock:
            self._voters.pop((poll_id, voter), None)

    def unsure(self, poll_id: str, voter: str) -> None:
        """The voter's change may have committed or not: their next vote reads first."""
        with self._lock:
            self._remember(poll_id, voter, None)

    def _remember(self, poll_id: str, voter: str, record: VoterRecord | None) -> None:
        self._voters[(poll_id, voter)] = record
        self._voters.move_to_end((poll_id, voter))
        if len(self._voters) > self._voter_limit:
            self._voters.popitem(last=False)
