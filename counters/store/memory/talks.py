"""Talks in process: each talk, its join code beside the polls' codes, and a poll's closing time."""

from __future__ import annotations

from dataclasses import replace

from counters.domain import refusals, values
from counters.domain.poll_rules import new_code, normalize_code
from counters.exceptions import Conflict, InvalidInput, UnknownCounter, VersionConflict
from counters.store.memory.state import MemoryState


class TalkMethods(MemoryState):
    """Talks kept in `_talks`, their codes in `_talk_codes` (a code is a poll's or a talk's, never both)."""

    def create_talk(self, talk: values.Talk) -> values.Talk:
        """Keep a new talk under a free code."""
        with self._lock:
            if talk.id in self._talks:
                raise Conflict(refusals.talk_exists(talk.id))
            if talk.code and self._code_taken(talk.code):
                raise Conflict(refusals.code_taken(talk.code))
            code = talk.code
            while not code or self._code_taken(code):
                code = new_code()
            talk = self._talks[talk.id] = replace(talk, code=code, version=0)
            self._talk_codes[code] = talk.id
            return talk

    def get_talk(self, talk_id: str) -> values.Talk:
        """One talk."""
        with self._lock:
            return self._talk(talk_id)

    def talk_by_code(self, code: str) -> values.Talk:
        """The talk a join code opens."""
        try:
            code = normalize_code(code)
        except InvalidInput as exc:
            raise UnknownCounter(refusals.no_code(code)) from exc
        with self._lock:
            if code not in self._talk_codes:
                raise UnknownCounter(refusals.no_code(code))
            return self._talks[self._talk_codes[code]]

    def list_talks(self) -> list[values.Talk]:
        """Every talk, sorted by id."""
        with self._lock:
            return [self._talks[talk_id] for talk_id in sorted(self._talks)]

    def save_talk(self, talk: values.Talk, *, expected_version: int) -> values.Talk:
        """Write the talk's changing parts if it is still at the version read."""
        with self._lock:
            stored = self._talk(talk.id)
            if stored.version != expected_version:
                raise VersionConflict(refusals.talk_version_changed(talk.id), current=stored)
            saved = replace(
                stored, title=talk.title, polls=talk.polls, current=talk.current, version=stored.version + 1
            )
            self._talks[talk.id] = saved
            return saved

    def set_poll_closes_at(self, poll_id: str, *, closes_at: str | None) -> values.PollDefinition:
        """Set or clear a poll's closing time."""
        with self._lock:
            poll = self._poll(poll_id)
            poll = self._polls[poll_id] = replace(poll, closes_at=closes_at, version=poll.version + 1)
            return poll

    def _talk(self, talk_id: str) -> values.Talk:
        """A stored talk (the caller holds the lock); UnknownCounter otherwise."""
        talk = self._talks.get(talk_id)
        if talk is None:
            raise UnknownCounter(refusals.no_talk(talk_id))
        return talk
