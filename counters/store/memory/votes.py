"""Votes in process: the decision is domain/vote_decision.py's; here it is applied under the lock."""

from __future__ import annotations

import time
from dataclasses import replace

from counters.domain import values
from counters.domain.clock import now_iso
from counters.domain.names import option_counter_name
from counters.domain.poll_rules import keeps_voter_count
from counters.domain.vote_decision import check_room, decide_vote, voter_count_move
from counters.exceptions import IdempotencyRace
from counters.store.memory.state import IdempotencyRecord
from counters.store.memory.vote_reads import VoteReadMethods
from counters.store.poll_clock import poll_clock


class VoteMethods(VoteReadMethods):
    """A vote moves the voter's record, the totals and the voter count at once."""

    def cast_vote(
        self,
        poll_id: str,
        *,
        voter: str,
        option: str | None,
        claim: values.IdempotencyClaim | None = None,
        picked: bool | None = None,
    ) -> values.VoteChange:
        """Move the voter's choice (or one pick) and the totals at once; checks come in DynamoDB's order."""
        with self._lock:
            poll = self._poll(poll_id)
            # A key in use answers from its record even if the poll has closed since.
            if claim is not None and (used := self._live_record(poll_id, claim.key, int(time.time()))):
                raise IdempotencyRace(used.reply(), poll)
            change = decide_vote(
                poll,
                self._record(poll_id, voter),
                voter=voter,
                option=option,
                picked=picked,
                now=poll_clock().utc_now(),
            )
            if change.counted:
                self._count_voter(poll, voter, change)
                change = self._move_vote(change)
                self._voters.setdefault(poll_id, {})[voter] = change.record_option
                self._picks[(poll_id, voter)] = change.picks or frozenset()
            if claim is not None:
                self._idempotency[(poll_id, claim.key)] = IdempotencyRecord(
                    fingerprint=claim.fingerprint,
                    choice=change.choice,
                    previous=change.previous,
                    counted=change.counted,
                    expires_at=claim.expires_at,
                    voter=voter,
                    new_voter=claim.new_voter,
                )
            return change

    def _count_voter(self, poll: values.PollDefinition, voter: str, change: values.VoteChange) -> None:
        """Count a voter joining or leaving the poll's voters; PollClosed once it holds max_voters."""
        if not keeps_voter_count(poll):
            return
        move = voter_count_move(poll, held=bool(self._voters.get(poll.id, {}).get(voter)), change=change)
        count = self._voter_counts.get(poll.id, 0)
        if move > 0:
            check_room(poll, voters=count)
        self._voter_counts[poll.id] = count + move

    def _move_vote(self, change: values.VoteChange) -> values.VoteChange:
        """+1 on the new option, -1 on the old one unless it is at 0 already (the caller holds the lock);
        the change with the moved totals as written."""
        now = now_iso()
        if change.choice:
            self._counters[option_counter_name(change.poll.id, change.choice)].add(1, now)
        if change.previous:
            old = self._counters[option_counter_name(change.poll.id, change.previous)]
            # Staff may have reset the old total: the vote still moves, the total stays at 0 untouched.
            if old.value < 1:
                change = replace(change, lowered=False)
            else:
                old.add(-1, now)
        untouched = None if change.lowered else option_counter_name(change.poll.id, change.previous)
        moved = [name for name in change.changed_counters() if name != untouched]
        return replace(change, totals=tuple(self._counters[name].written() for name in moved))
