"""The counter store contract: what every backend must do, and the values it returns."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class CounterDefinition:
    """A counter to register: its first write starts from `start`, each hit adds `step`."""

    name: str
    kind: str
    title: str = ""
    description: str = ""
    start: int = 0
    step: int = 1
    # More than 0 declares a hot counter whose writes spread over this many shard items.
    shards: int = 0


@dataclass(frozen=True)
class CounterState:
    """A counter's total as the store last acknowledged it."""

    name: str
    kind: str
    value: int
    version: int
    title: str = ""
    description: str = ""
    updated_at: str | None = None

    def as_dict(self) -> dict:
        """Serialise for JSON answers and websocket frames."""
        return asdict(self)


@dataclass(frozen=True)
class PollOption:
    """One option of a poll."""

    id: str
    label: str


@dataclass(frozen=True)
class PollDefinition:
    """A poll: a question and its options; closed polls take no votes."""

    id: str
    question: str
    options: tuple[PollOption, ...] = field(default_factory=tuple)
    closed: bool = False


@dataclass(frozen=True)
class ResetRecord:
    """One applied reset of a counter, as its audit record holds it."""

    name: str
    at: str
    actor: str
    reason: str
    old_value: int
    old_version: int
    new_version: int


class CounterStore(ABC):
    """Where counters live; the only layer that talks to the database."""

    @abstractmethod
    def ensure_table(self) -> bool:
        """Create the storage if missing; return whether it was created."""

    @abstractmethod
    def define_counter(self, definition: CounterDefinition) -> bool:
        """Register a counter once; return False if it already existed (it is left as it is)."""

    @abstractmethod
    def increment(self, name: str, *, kind: str, by: int | None = None) -> CounterState:
        """Add `by` (default: the counter's step) to a registered counter of `kind` in one write."""

    @abstractmethod
    def get(self, name: str) -> CounterState:
        """Read one counter; raise UnknownCounter if it is not registered."""

    @abstractmethod
    def get_many(self, names: Iterable[str]) -> list[CounterState]:
        """Read several registered counters at once, in the order given; unknown names are left out."""

    @abstractmethod
    def counter_names(self) -> list[str]:
        """Names of every registered counter, sorted."""

    def list_counters(self) -> list[CounterState]:
        """Read every registered counter."""
        return self.get_many(self.counter_names())

    @abstractmethod
    def define_poll(self, poll: PollDefinition) -> bool:
        """Register a poll and a votes counter per option; return False if it already existed."""

    @abstractmethod
    def get_poll(self, poll_id: str) -> PollDefinition:
        """Read one poll's definition; raise UnknownCounter if unknown."""

    @abstractmethod
    def list_polls(self) -> list[PollDefinition]:
        """Every registered poll, sorted by id."""

    @abstractmethod
    def make_hot(self, name: str, *, shards: int) -> CounterState:
        """Spread a counter's writes over `shards` shard items (never fewer than now), keeping its count."""

    @abstractmethod
    def shard_count(self, name: str) -> int:
        """Shards this process knows a counter to have: 0 for a plain counter or one not seen yet; no I/O."""

    @abstractmethod
    def add_to_bucket(self, name: str, bucket: str, count: int, *, expires_at: int) -> None:
        """Add `count` to one time bucket of a counter in one write; the bucket expires at `expires_at`."""

    @abstractmethod
    def read_buckets(self, name: str, *, first: str, last: str) -> dict[str, int]:
        """Counts of a counter's time buckets from `first` to `last` (inclusive); empty ones are left out."""

    @abstractmethod
    def reset(self, name: str, *, expected_version: int, actor: str, reason: str) -> CounterState:
        """Set a counter (every shard of it) to 0 if still at `expected_version`, with an audit record."""

    @abstractmethod
    def reset_history(self, name: str, *, limit: int = 50) -> list[ResetRecord]:
        """A counter's audit records of applied resets, newest first."""

    @abstractmethod
    def create_poll(self, poll: PollDefinition) -> PollDefinition:
        """Register a new poll and its option counters in one write; Conflict if any of them exists."""

    @abstractmethod
    def add_poll_option(self, poll_id: str, option: PollOption) -> PollDefinition:
        """Append an option (and its counter) to a poll, only if its id is new; return the poll."""

    @abstractmethod
    def set_poll_closed(self, poll_id: str, *, closed: bool) -> PollDefinition:
        """Close or reopen a poll, only if it is not so already; return the poll."""
