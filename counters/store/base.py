"""The counter store contract: every method a service, selector or background job calls on a store.

A backend is a subclass named by the COUNTERS_STORE_BACKEND setting (a dotted path), built by its
`from_settings()`. Its values are the domain's (counters.domain.values); its failures the project's
exceptions (counters.exceptions). tests/unit/store/test_contract.py runs against every backend.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from counters.domain import values
from counters.domain.page_rules import PageBudget
from counters.domain.visitors import VisitDay
from counters.store.capabilities import (
    STREAMS,
    WATCHED,
    MissingCapability,
    StreamReaders,
    StreamWiring,
    WatchedTables,
)


def _nothing() -> None:
    """Hear an event and do nothing with it."""


@dataclass(frozen=True)
class StoreHooks:
    """What a store tells the process it serves (called from a background thread, never blocking)."""

    # The database answers somewhere else now (the embedded DynamoDB Local was started again on
    # another port): build the store anew.
    moved: Callable[[], None] = _nothing
    # The database died: nothing can be counted until it is back; live pages should say so.
    lost: Callable[[], None] = _nothing


class CounterStore(ABC):
    """Where counters live; the only layer that talks to the database."""

    # Optional features this backend offers (capabilities.py); callers ask before they use one.
    capabilities: frozenset[str] = frozenset()

    def require(self, capability: str) -> None:
        """MissingCapability unless this store declares `capability`."""
        if capability not in self.capabilities:
            raise MissingCapability(self, capability)

    def stream_readers(self, wiring: StreamWiring) -> StreamReaders:
        """STREAMS: the readers of this store's streams (and the poll of watched tables without one)."""
        self.require(STREAMS)
        raise NotImplementedError

    def stream_status(self) -> dict | None:
        """STREAMS: who reads the table's stream (`{"owner","live","lag_seconds",...}`); None: nobody.

        A failure to read it is the project's exception (StoreUnavailable).
        """
        self.require(STREAMS)
        raise NotImplementedError

    def watched_tables(self) -> WatchedTables:
        """WATCHED: the store's watched counters."""
        self.require(WATCHED)
        raise NotImplementedError

    @classmethod
    @abstractmethod
    def from_settings(cls, *, hooks: StoreHooks = StoreHooks()) -> CounterStore:
        """Build the store the settings describe; no table is created and nothing is written."""

    def close(self) -> None:  # noqa: B027 - optional: most backends hold nothing to release
        """Release what the store holds (connections); it is not used afterwards."""

    # ---- storage ----

    @abstractmethod
    def ensure_table(self) -> bool:
        """Create the storage if missing; return whether it was created."""

    # ---- counters ----

    @abstractmethod
    def define_counter(self, definition: values.CounterDefinition) -> bool:
        """Register a counter once; return False if it already existed (it is left as it is)."""

    # The answer carries what the write returns (value, version, updated_at); DynamoDB's holds no title
    # or description for a plain counter, so callers read those with `get`.
    @abstractmethod
    def move_starts(self) -> int:
        """Make each counter's stored total hold its start, once (for counters defined before it did).

        Safe to run again and while anything writes; return how many totals took their start in now.
        """

    @abstractmethod
    def increment(self, name: str, *, kind: str, by: int | None = None) -> values.CounterState:
        """Add `by` (default: the counter's step) to a registered counter of `kind` in one write."""

    @abstractmethod
    def get(self, name: str) -> values.CounterState:
        """Read one counter; raise UnknownCounter if it is not registered."""

    @abstractmethod
    def get_many(self, names: Iterable[str]) -> list[values.CounterState]:
        """Read several registered counters at once, in the order given; unknown names are left out."""

    @abstractmethod
    def counter_names(self) -> list[str]:
        """Names of every registered counter, sorted."""

    def list_counters(self) -> list[values.CounterState]:
        """Read every registered counter."""
        return self.get_many(self.counter_names())

    @abstractmethod
    def set_badge_counts(self, name: str, *, enabled: bool) -> values.CounterState:
        """Choose whether each fetch of a counter's badge counts a view; return the counter as read."""

    # ---- hot counters ----

    @abstractmethod
    def make_hot(self, name: str, *, shards: int) -> values.CounterState:
        """Spread a counter's writes over `shards` shard items (never fewer than now), keeping its count."""

    @abstractmethod
    def shard_count(self, name: str) -> int:
        """Shards this process knows a counter to have: 0 for a plain counter or one not seen yet; no I/O."""

    # ---- history ----

    @abstractmethod
    def add_to_bucket(self, name: str, bucket: str, count: int, *, expires_at: int) -> None:
        """Add `count` to one time bucket of a counter in one write; the bucket expires at `expires_at`."""

    @abstractmethod
    def read_buckets(self, name: str, *, first: str, last: str) -> dict[str, int]:
        """Counts of a counter's time buckets from `first` to `last` (inclusive); empty ones are left out."""

    # ---- unique visitors and bot views ----

    @abstractmethod
    def add_bot_view(self, name: str) -> values.CounterState:
        """Add one to a registered view counter's `bot_views` in one write; its value and version stay."""

    @abstractmethod
    def daily_salt(self, day: VisitDay, *, candidate: bytes) -> bytes:
        """The salt of `day`: the stored one, or `candidate` stored now; every process gets the same."""

    @abstractmethod
    def drop_salts(self, *, before: VisitDay) -> int:
        """Delete the salt of every day before `before`; return how many were deleted."""

    # Called once the page's view was counted, so only registered view counters get markers.
    @abstractmethod
    def record_visitor(self, name: str, visitor: str, *, day: VisitDay) -> bool:
        """Mark `visitor` as seen on page `name` on `day`; the first time, add one to the day's count.

        Atomic and exact: of any number of calls (concurrent or resent) for one visitor, page and day,
        exactly one adds, and it returns True. The count is the day's `DAY` bucket (`read_buckets`).
        """

    @abstractmethod
    def visitors_on(self, names: Iterable[str], *, day: VisitDay) -> dict[str, int]:
        """Unique visitors of each counter on `day`; counters with none are left out."""

    # ---- pages created at their first view, and tallies per day (sources, pages) ----

    @abstractmethod
    def create_page(self, definition: values.CounterDefinition, *, cap: int) -> bool:
        """Register a page's views counter unless it exists, only while fewer than `cap` were created so.

        True if created, False if it existed (left as it is). At the cap: PageLimitReached, nothing is
        created and the refusal is counted (`page_budget`). Atomic: racing creators never pass the cap.
        """

    @abstractmethod
    def page_budget(self) -> PageBudget:
        """How many pages were created at their first view, and how many were refused at the cap."""

    @abstractmethod
    def add_to_tally(self, group: str, day: str, key: str, count: int, *, expires_at: int) -> None:
        """Add `count` to `key` of a group's tally of `day` in one write (ADD); it expires at `expires_at`."""

    @abstractmethod
    def read_tally(self, group: str, *, first_day: str, last_day: str) -> dict[tuple[str, str], int]:
        """A group's counts per (day, key) from `first_day` to `last_day` (inclusive); zeros left out."""

    # ---- resets ----

    @abstractmethod
    def reset(self, name: str, *, expected_version: int, actor: str, reason: str) -> values.CounterState:
        """Set a counter (every shard of it) to 0 if still at `expected_version`, with an audit record.

        VersionConflict (carrying the current state) if the counter moved on.
        """

    @abstractmethod
    def reset_history(self, name: str, *, limit: int = 50) -> list[values.ResetRecord]:
        """A counter's audit records of applied resets, newest first."""

    # ---- polls ----

    @abstractmethod
    def define_poll(self, poll: values.PollDefinition) -> bool:
        """Register a poll (a new one with a unique join code, drawn if it has none) and a votes counter
        per option; return False if it already existed."""

    @abstractmethod
    def get_poll(self, poll_id: str) -> values.PollDefinition:
        """Read one poll's definition; raise UnknownCounter if unknown."""

    @abstractmethod
    def poll_by_code(self, code: str) -> values.PollDefinition:
        """The poll a join code opens (any case); raise UnknownCounter if none."""

    @abstractmethod
    def list_polls(self) -> list[values.PollDefinition]:
        """Every registered poll, sorted by id."""

    @abstractmethod
    def create_poll(self, poll: values.PollDefinition) -> values.PollDefinition:
        """Register a new poll, its join code (drawn if it has none) and its option counters in one write;
        Conflict if any of them exists. Return the poll as stored (with its code)."""

    @abstractmethod
    def add_poll_option(self, poll_id: str, option: values.PollOption) -> values.PollDefinition:
        """Append an option (and its counter) to a poll, only if its id is new; return the poll."""

    @abstractmethod
    def set_poll_closed(self, poll_id: str, *, closed: bool) -> values.PollDefinition:
        """Close or reopen a poll, only if it is not so already (Conflict); bump its version; return it."""

    @abstractmethod
    def set_poll_revealed(self, poll_id: str, *, revealed: bool) -> values.PollDefinition:
        """Reveal or hide a poll's totals, only if not so already (Conflict); bump its version; return it."""

    @abstractmethod
    def set_poll_unlisted(self, poll_id: str, *, unlisted: bool) -> values.PollDefinition:
        """Take a poll off the public dashboard or put it back, only if not so already (Conflict)."""

    @abstractmethod
    def reset_poll(
        self, poll_id: str, *, expected_version: int, actor: str, reason: str
    ) -> values.PollDefinition:
        """Zero a poll's votes (totals, voter count; every voter then holds none) if it is still at
        `expected_version` and no total moved since it was read, with an audit record, in one write;
        bump its version; VersionConflict (carrying the poll now) otherwise."""

    @abstractmethod
    def delete_poll(self, poll_id: str, *, expected_version: int, actor: str, reason: str) -> None:
        """Remove a poll, its join code and its option counters if still at `expected_version`, with an
        audit record, in one write; VersionConflict otherwise."""

    @abstractmethod
    def edit_poll(
        self, poll_id: str, *, expected_version: int, question: str, labels: dict[str, str]
    ) -> values.PollDefinition:
        """Change the question and option labels (by option id) if the poll is at `expected_version`
        (VersionConflict) and no option has taken a vote yet (Conflict: locked); bump its version."""

    @abstractmethod
    def set_poll_closes_at(self, poll_id: str, *, closes_at: str | None) -> values.PollDefinition:
        """Set a poll's closing time (ISO-8601 UTC; None: none), bumping its version; return it."""

    @abstractmethod
    def poll_audit(self, poll_id: str, *, limit: int = 50) -> list[values.PollAudit]:
        """A poll's audit records of resets and its deletion, newest first."""

    # ---- talks ----

    @abstractmethod
    def create_talk(self, talk: values.Talk) -> values.Talk:
        """Register a new talk and its join code (drawn if it has none; never one a poll or talk holds)
        in one write, at version 0; Conflict if the id or a chosen code is taken. Return it as stored."""

    @abstractmethod
    def get_talk(self, talk_id: str) -> values.Talk:
        """Read one talk; raise UnknownCounter if unknown."""

    @abstractmethod
    def talk_by_code(self, code: str) -> values.Talk:
        """The talk a join code opens (any case); raise UnknownCounter if none (a poll's code included)."""

    @abstractmethod
    def list_talks(self) -> list[values.Talk]:
        """Every talk, sorted by id."""

    @abstractmethod
    def save_talk(self, talk: values.Talk, *, expected_version: int) -> values.Talk:
        """Write a talk's title, polls in order and open poll if it is still at `expected_version`
        (VersionConflict carrying the talk now; UnknownCounter if gone); bump its version; return it.
        Its id and code never change."""

    # ---- votes ----

    @abstractmethod
    def cast_vote(
        self,
        poll_id: str,
        *,
        voter: str,
        option: str | None,
        claim: values.IdempotencyClaim | None = None,
        picked: bool | None = None,
    ) -> values.VoteChange:
        """Make `option` the voter's choice (None retracts) in one atomic change of voter and totals.

        In a multiple-choice poll, `picked` adds (True) or removes (False) the one pick `option`
        (poll_rules.pick_change), InvalidInput without it, Conflict past `max_picks`. A poll that
        keeps a voter count (poll_rules.keeps_voter_count) counts the voter in the same change, and
        refuses a new voter with PollClosed once it holds `max_voters`. NotAllowed for an anonymous
        voter in a poll for signed-in users; PollClosed past `closes_at`.

        With a `claim`, the change also records the Idempotency-Key, claimed per poll with the voter
        it was used by; IdempotencyRace if that key is already recorded in the poll, by this voter or
        another, and nothing changes (with the record and the poll if it read them, else the caller
        answers from `stored_reply`). PollClosed, InvalidInput for an
        unknown option, UnknownCounter for an unknown poll; no total ever goes below zero.
        """

    @abstractmethod
    def voter_counts(self, poll_ids: list[str]) -> dict[str, int]:
        """Voters holding a vote in each of these polls that keep a count (others are left out)."""

    @abstractmethod
    def voter_picks(self, voter: str, poll_id: str) -> frozenset[str]:
        """The options a voter holds in a poll (every pick of a multiple-choice poll; none since a reset)."""

    @abstractmethod
    def voter_choices(self, voter: str, poll_ids: list[str]) -> dict[str, str]:
        """A voter's choice in each of several polls (polls without their vote are left out)."""

    @abstractmethod
    def poll_voters(self, poll_id: str) -> dict[str, str]:
        """Every voter holding a vote in a poll, with their option."""

    @abstractmethod
    def stored_reply(self, poll_id: str, key: str, *, now: int | None = None) -> values.StoredReply | None:
        """The live (unexpired) idempotency record of a key in a poll, or None."""
