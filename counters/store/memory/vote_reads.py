"""What a vote reads in process: voter records, voter counts and idempotency records."""

from __future__ import annotations

import time

from counters.domain import values
from counters.store.memory.state import MemoryState


class VoteReadMethods(MemoryState):
    """Reads of `_voters`, `_picks`, `_voter_counts` and `_idempotency`."""

    def _record(self, poll_id: str, voter: str) -> values.VoterRecord:
        """The voter's record in the poll, as the DynamoDB store reads it (the caller holds the lock)."""
        held = self._voters.get(poll_id, {}).get(voter)
        return values.VoterRecord(option=held, rev=0, picks=self._picks.get((poll_id, voter), frozenset()))

    def voter_counts(self, poll_ids: list[str]) -> dict[str, int]:
        """The count of each poll that keeps one."""
        with self._lock:
            return {
                poll_id: self._voter_counts[poll_id] for poll_id in poll_ids if poll_id in self._voter_counts
            }

    def voter_picks(self, voter: str, poll_id: str) -> frozenset[str]:
        """The voter's picks, or their one option."""
        with self._lock:
            option = self._voters.get(poll_id, {}).get(voter)
            return self._picks.get((poll_id, voter)) or frozenset(filter(None, [option]))

    def voter_choices(self, voter: str, poll_ids: list[str]) -> dict[str, str]:
        """The voter's option in each poll where they hold a vote."""
        with self._lock:
            choices = {poll_id: self._voters.get(poll_id, {}).get(voter) for poll_id in poll_ids}
            return {poll_id: option for poll_id, option in choices.items() if option}

    def poll_voters(self, poll_id: str) -> dict[str, str]:
        """Every voter holding a vote in the poll, with their option."""
        with self._lock:
            return {voter: option for voter, option in self._voters.get(poll_id, {}).items() if option}

    def stored_reply(self, poll_id: str, key: str, *, now: int | None = None) -> values.StoredReply | None:
        """The key's record in the poll unless it has expired."""
        with self._lock:
            record = self._live_record(poll_id, key, now or int(time.time()))
            return None if record is None else record.reply()
