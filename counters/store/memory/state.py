"""The in-process store's state: its dictionaries behind one lock, and the lookups every part shares."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

from counters.domain import refusals, values
from counters.domain.page_rules import PageBudget
from counters.exceptions import UnknownCounter


@dataclass
class StoredCounter:
    """One registered counter: its definition, total, version and shard count."""

    definition: values.CounterDefinition
    value: int
    version: int = 0
    shards: int = 0
    updated_at: str | None = None
    bot_views: int = 0

    def add(self, delta: int, now: str) -> None:
        """Apply one write: the total moves by `delta`, the version by one."""
        self.value += delta
        self.version += 1
        self.updated_at = now

    def written(self) -> values.CounterState:
        """What an increment answers: the numbers written (DynamoDB's UPDATED_NEW holds no title)."""
        return values.CounterState(
            name=self.definition.name,
            kind=self.definition.kind,
            value=self.value,
            version=self.version,
            updated_at=self.updated_at,
            bot_views=self.bot_views,
        )

    def state(self) -> values.CounterState:
        """What a read answers: the numbers with the counter's title, description and settings."""
        return replace(
            self.written(),
            title=self.definition.title,
            description=self.definition.description,
            badge_counts=self.definition.badge_counts,
        )


@dataclass
class IdempotencyRecord:
    """What a vote with an Idempotency-Key left behind: the request's hash, its voter, the change it made."""

    fingerprint: str
    choice: str | None
    previous: str | None
    counted: bool
    expires_at: int
    voter: str
    new_voter: bool

    def reply(self) -> values.StoredReply:
        """The record as a replay reads it."""
        return values.StoredReply(
            fingerprint=self.fingerprint,
            choice=self.choice,
            previous=self.previous,
            counted=self.counted,
            voter=self.voter,
            new_voter=self.new_voter,
        )


class MemoryState:
    """The store's dictionaries and lock; each part's public method holds the lock around its call."""

    def __init__(self, *, table: str = "counters") -> None:
        # Named like the DynamoDB table: code that keys per store (history tallies, sites) reads it.
        self.table = table
        self._lock = threading.Lock()
        self._created = False
        self._counters: dict[str, StoredCounter] = {}
        self._polls: dict[str, values.PollDefinition] = {}
        self._codes: dict[str, str] = {}  # join code -> poll id
        self._talks: dict[str, values.Talk] = {}
        self._talk_codes: dict[str, str] = {}  # join code -> talk id
        self._voters: dict[str, dict[str, str | None]] = {}  # poll -> voter -> option (None: retracted)
        self._picks: dict[tuple[str, str], frozenset[str]] = {}  # (poll, voter) -> multiple-choice picks
        self._voter_counts: dict[str, int] = {}  # poll -> voters holding a vote, where it keeps a count
        self._poll_audits: dict[str, list[values.PollAudit]] = {}  # oldest first
        self._idempotency: dict[tuple[str, str], IdempotencyRecord] = {}  # (poll, key)
        self._buckets: dict[str, dict[str, tuple[int, int]]] = {}  # name -> bucket -> (count, expires_at)
        self._resets: dict[str, list[values.ResetRecord]] = {}  # oldest first
        self._salts: dict[str, bytes] = {}  # day key -> salt
        self._seen: set[tuple[str, str, str]] = set()  # (page, day key, visitor)
        self._pages = PageBudget()
        self._tallies: dict[tuple[str, str, str], int] = {}  # (group, day, key) -> count

    def _counter(self, name: str) -> StoredCounter:
        """A registered counter (the caller holds the lock); UnknownCounter otherwise."""
        counter = self._counters.get(name)
        if counter is None:
            raise UnknownCounter(refusals.no_counter(name))
        return counter

    def _define(self, definition: values.CounterDefinition) -> bool:
        """Register a counter (the caller holds the lock); False if the name is taken."""
        if definition.name in self._counters:
            return False
        self._counters[definition.name] = StoredCounter(
            definition=definition, value=definition.start, shards=definition.shards
        )
        return True

    def _code_taken(self, code: str) -> bool:
        """Whether a poll or a talk holds this join code (the caller holds the lock)."""
        return code in self._codes or code in self._talk_codes

    def _poll(self, poll_id: str) -> values.PollDefinition:
        """A registered poll (the caller holds the lock); UnknownCounter otherwise."""
        poll = self._polls.get(poll_id)
        if poll is None:
            raise UnknownCounter(refusals.no_poll(poll_id))
        return poll

    def _live_record(self, poll_id: str, key: str, now: int) -> IdempotencyRecord | None:
        """A key's record in a poll if it has not expired by `now` (the caller holds the lock)."""
        record = self._idempotency.get((poll_id, key))
        return record if record is not None and record.expires_at >= now else None
