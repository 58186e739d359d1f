"""Polls in process: definitions, join codes, options, closing and revealing."""

from __future__ import annotations

from dataclasses import replace

from counters.domain import refusals, values
from counters.domain.names import option_counter_name
from counters.domain.poll_rules import new_code, normalize_code
from counters.domain.polls import option_counter_definition
from counters.exceptions import Conflict, InvalidInput, UnknownCounter
from counters.store.memory.state import MemoryState


class PollMethods(MemoryState):
    """Polls kept in `_polls`, codes in `_codes`."""

    def define_poll(self, poll: values.PollDefinition) -> bool:
        """Register the poll with a join code unless it exists, and each option's counter if new."""
        with self._lock:
            created = poll.id not in self._polls
            if created:
                self._put_poll(poll)
            for option in poll.options:
                self._define(option_counter_definition(poll, option))
            return created

    def _put_poll(self, poll: values.PollDefinition) -> values.PollDefinition:
        """Keep a new poll under its code, or a free random one (the caller holds the lock)."""
        if poll.code and self._code_taken(poll.code):
            raise Conflict(refusals.code_taken(poll.code))
        code = poll.code
        while not code or self._code_taken(code):
            code = new_code()
        poll = self._polls[poll.id] = replace(poll, code=code)
        self._codes[code] = poll.id
        return poll

    def poll_by_code(self, code: str) -> values.PollDefinition:
        """The poll a join code opens."""
        try:
            code = normalize_code(code)
        except InvalidInput as exc:
            raise UnknownCounter(refusals.no_code(code)) from exc
        with self._lock:
            if code not in self._codes:
                raise UnknownCounter(refusals.no_code(code))
            return self._polls[self._codes[code]]

    def get_poll(self, poll_id: str) -> values.PollDefinition:
        """One poll's definition."""
        with self._lock:
            return self._poll(poll_id)

    def list_polls(self) -> list[values.PollDefinition]:
        """Every poll, sorted by id."""
        with self._lock:
            return [self._polls[poll_id] for poll_id in sorted(self._polls)]

    def create_poll(self, poll: values.PollDefinition) -> values.PollDefinition:
        """Register a new poll and its option counters, or nothing if any of them exists."""
        with self._lock:
            if poll.id in self._polls:
                raise Conflict(refusals.poll_exists(poll.id))
            for option in poll.options:
                if (name := option_counter_name(poll.id, option.id)) in self._counters:
                    raise Conflict(refusals.option_counter_taken(name, several=True))
            poll = self._put_poll(poll)
            for option in poll.options:
                self._define(option_counter_definition(poll, option))
            return poll

    def add_poll_option(self, poll_id: str, option: values.PollOption) -> values.PollDefinition:
        """Append an option with a new id, and its counter."""
        with self._lock:
            poll = self._poll(poll_id)
            if any(existing.id == option.id for existing in poll.options):
                raise Conflict(refusals.option_exists(poll_id, option.id))
            if (name := option_counter_name(poll_id, option.id)) in self._counters:
                raise Conflict(refusals.option_counter_taken(name, several=False))
            poll = self._polls[poll_id] = replace(
                poll, options=(*poll.options, option), version=poll.version + 1
            )
            self._define(option_counter_definition(poll, option))
            return poll

    def set_poll_closed(self, poll_id: str, *, closed: bool) -> values.PollDefinition:
        """Close or reopen a poll that is the other way now."""
        return self._set_flag(poll_id, "closed", closed, refusals.CLOSED_WORDS)

    def set_poll_revealed(self, poll_id: str, *, revealed: bool) -> values.PollDefinition:
        """Reveal or hide a poll's totals that are the other way now."""
        return self._set_flag(poll_id, "revealed", revealed, refusals.REVEALED_WORDS)

    def set_poll_unlisted(self, poll_id: str, *, unlisted: bool) -> values.PollDefinition:
        """Take a poll off the public dashboard or put it back, if it is the other way now."""
        return self._set_flag(poll_id, "unlisted", unlisted, refusals.UNLISTED_WORDS)

    def _set_flag(self, poll_id: str, flag: str, on: bool, words: tuple[str, str]) -> values.PollDefinition:
        """Set one flag of the poll if it is the other way now, bumping its version; Conflict if not."""
        with self._lock:
            poll = self._poll(poll_id)
            if getattr(poll, flag) == on:
                raise Conflict(refusals.poll_already(poll_id, words, on))
            poll = self._polls[poll_id] = replace(poll, **{flag: on}, version=poll.version + 1)
            return poll
