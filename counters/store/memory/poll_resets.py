"""Poll resets, deletions and edits in process, each at the version staff saw, with audit records."""

from __future__ import annotations

from dataclasses import replace

from counters.domain import refusals, values
from counters.domain.clock import now_iso
from counters.domain.names import option_counter_name
from counters.domain.polls import option_counter_definition
from counters.exceptions import Conflict, VersionConflict
from counters.store.memory.state import MemoryState


class PollResetMethods(MemoryState):
    """Resets, deletions and edits of polls."""

    def reset_poll(
        self, poll_id: str, *, expected_version: int, actor: str, reason: str
    ) -> values.PollDefinition:
        """Zero the poll's totals and voters if it is at `expected_version`, with an audit record."""
        with self._lock:
            poll = self._seen_poll(poll_id, expected_version)
            self._audit(poll, "reset", actor, reason)
            now = now_iso()
            for option in poll.options:
                counter = self._counters[option_counter_name(poll_id, option.id)]
                counter.add(-counter.value, now)
            self._forget_voters(poll_id)
            self._voter_counts[poll_id] = 0
            poll = self._polls[poll_id] = replace(poll, version=poll.version + 1, resets=poll.resets + 1)
            return poll

    def delete_poll(self, poll_id: str, *, expected_version: int, actor: str, reason: str) -> None:
        """Remove the poll, its code and option counters if at `expected_version`, with an audit record."""
        with self._lock:
            poll = self._seen_poll(poll_id, expected_version)
            self._audit(poll, "delete", actor, reason)
            for option in poll.options:
                self._counters.pop(option_counter_name(poll_id, option.id), None)
            self._codes.pop(poll.code, None)
            self._forget_voters(poll_id)
            self._voter_counts.pop(poll_id, None)
            del self._polls[poll_id]

    def edit_poll(
        self, poll_id: str, *, expected_version: int, question: str, labels: dict[str, str]
    ) -> values.PollDefinition:
        """New question and labels if at `expected_version` and no option counter has moved yet."""
        with self._lock:
            poll = self._seen_poll(poll_id, expected_version)
            names = [option_counter_name(poll_id, o.id) for o in poll.options]
            if any(self._counters[name].version for name in names):
                raise Conflict(refusals.EDIT_LOCKED)
            options = tuple(replace(o, label=labels.get(o.id, o.label)) for o in poll.options)
            poll = self._polls[poll_id] = replace(
                poll, question=question, options=options, version=poll.version + 1
            )
            for option in options:
                counter = self._counters[option_counter_name(poll_id, option.id)]
                counter.definition = replace(
                    counter.definition, title=option_counter_definition(poll, option).title
                )
            return poll

    def poll_audit(self, poll_id: str, *, limit: int = 50) -> list[values.PollAudit]:
        """The newest `limit` audit records of a poll, newest first."""
        with self._lock:
            return list(reversed(self._poll_audits.get(poll_id, [])))[:limit]

    def _seen_poll(self, poll_id: str, expected_version: int) -> values.PollDefinition:
        """The poll if at `expected_version` (the caller holds the lock); VersionConflict otherwise."""
        poll = self._poll(poll_id)
        if poll.version != expected_version:
            raise VersionConflict(
                refusals.poll_version_changed(poll_id, poll.version),
                current=poll,
            )
        return poll

    def _audit(self, poll: values.PollDefinition, action: str, actor: str, reason: str) -> None:
        """Keep the audit record of a reset or deletion of `poll` (the caller holds the lock)."""
        totals = {o.id: self._counters[option_counter_name(poll.id, o.id)].value for o in poll.options}
        record = values.PollAudit(
            poll=poll.id,
            action=action,
            at=now_iso(),
            actor=actor,
            reason=reason,
            old_version=poll.version,
            totals=totals,
        )
        self._poll_audits.setdefault(poll.id, []).append(record)

    def _forget_voters(self, poll_id: str) -> None:
        """Every voter of the poll holds no vote any more (the caller holds the lock)."""
        self._voters.pop(poll_id, None)
        for key in [key for key in self._picks if key[0] == poll_id]:
            del self._picks[key]
