"""The values the store, services and selectors pass around: counters, polls, resets, vote changes."""

from __future__ import annotations

from dataclasses import dataclass, field

from counters.domain.names import option_counter_name


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
    # Whether each fetch of the counter's badge counts a view (off unless the owner opts in).
    badge_counts: bool = False


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
    # View counters only: views from bots, counted apart from `value` (and never in `version`), and the
    # unique visitors of the current UTC day when the read asked for them (None: not read).
    bot_views: int = 0
    visitors_today: int | None = None
    # A setting of the counter, known from reads only (a write's answer says False); not published.
    badge_counts: bool = False

    def as_dict(self) -> dict:
        """Serialise for JSON answers and websocket frames; the view-only numbers only for view counters."""
        # A shallow copy: every field is a plain value, and asdict's deep copy showed in the beacon's profile.
        data = dict(vars(self))
        del data["badge_counts"]
        if self.kind != "views" or self.visitors_today is None:
            del data["visitors_today"]
        if self.kind != "views":
            del data["bot_views"]
        return data


@dataclass(frozen=True)
class PollOption:
    """One option of a poll."""

    id: str
    label: str


@dataclass(frozen=True)
class PollDefinition:
    """A poll: a question and its options, its join code, kind, results rule and closing rules."""

    id: str
    question: str
    options: tuple[PollOption, ...] = field(default_factory=tuple)
    closed: bool = False
    # Join code (counters.domain.poll_rules.CODE_ALPHABET); "" until the store gives the poll one.
    code: str = ""
    kind: str = "single"  # "single" | "multi" | "rating"
    max_picks: int = 1  # multi: the picks one voter may hold at once
    results: str = "always"  # "always" | "voted" | "closed" | "revealed": when the audience sees totals
    revealed: bool = False  # the presenter's reveal (matters when results == "revealed")
    closes_at: str | None = None  # ISO-8601 UTC; from then on the poll takes no votes
    max_voters: int | None = None  # closes once this many voters hold a vote
    audience: str = "anyone"  # "anyone" | "users": who may vote
    # Kept off the public dashboard (a talk's poll): only its own pages show it. Stored only when set, so a
    # poll from before the setting is listed as it always was.
    unlisted: bool = False
    # Bumped by every edit, close, reopen, reveal, hide and reset: staff writes are conditional on it.
    version: int = 0
    # Resets of the poll's votes: a voter record written before the last one holds no vote.
    resets: int = 0


@dataclass(frozen=True)
class TalkPoll:
    """One poll of a talk, in the talk's order; `minutes`: it closes this long after it is opened."""

    poll: str
    minutes: int | None = None


@dataclass(frozen=True)
class Talk:
    """A presenter's talk: its polls in order, its own join code, and the poll open on the phones now."""

    id: str
    title: str
    polls: tuple[TalkPoll, ...] = field(default_factory=tuple)
    code: str = ""  # drawn by the store, from the same alphabet and space as the polls' codes
    current: str = ""  # the id of the poll the presenter has open ("" before the first)
    # Bumped by every change: the authoring page's writes are conditional on it.
    version: int = 0

    @property
    def poll_ids(self) -> list[str]:
        """The talk's poll ids, in order."""
        return [entry.poll for entry in self.polls]


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


@dataclass(frozen=True)
class VoterRecord:
    """A voter's current choice in one poll (None: no vote) and the record's revision; in a
    multiple-choice poll `picks` holds every option picked (and `option` one of them)."""

    option: str | None
    rev: int
    picks: frozenset[str] = frozenset()
    # The poll's `resets` when the record was written: an older record holds no vote.
    epoch: int = 0

    def in_poll(self, poll: PollDefinition) -> VoterRecord:
        """The record as it counts now: no vote if the poll's votes were reset since it was written."""
        if self.epoch == poll.resets:
            return self
        return VoterRecord(option=None, rev=self.rev, epoch=poll.resets)

    @property
    def holds_vote(self) -> bool:
        """Whether the voter holds any vote in the poll."""
        return bool(self.option or self.picks)


@dataclass(frozen=True)
class PollAudit:
    """A poll's reset or deletion as its audit record holds it: who, why, and the totals it removed."""

    poll: str
    action: str  # "reset" | "delete"
    at: str
    actor: str
    reason: str
    old_version: int
    totals: dict[str, int]


@dataclass(frozen=True)
class IdempotencyClaim:
    """What a write carrying an Idempotency-Key records: the key, the request's hash, the expiry."""

    key: str
    fingerprint: str
    expires_at: int
    # Whether the request's voter was minted by it (no cookie, not signed in): its answer sets that
    # voter's cookie, so a replay may hand the same cookie to a resend that comes without one.
    new_voter: bool = False


@dataclass(frozen=True)
class StoredReply:
    """A live idempotency record: the request it belongs to, the voter it was used by, the change it made."""

    fingerprint: str
    choice: str | None
    previous: str | None
    counted: bool
    voter: str
    new_voter: bool = False


@dataclass(frozen=True)
class VoteChange:
    """What one vote or retraction did: the voter's choice before and after."""

    poll: PollDefinition
    voter: str
    choice: str | None
    previous: str | None
    # Whether the old option's total took its -1: not when it was at 0 already (e.g. reset by staff).
    lowered: bool = True
    # A multiple-choice poll: every option the voter holds after the change (a pick added is `choice`,
    # a pick removed is `previous`); None in a single-choice poll.
    picks: frozenset[str] | None = None
    # The moved option totals exactly as the write left them, when the store can tell (the in-process
    # store, under its lock); empty when it cannot: a DynamoDB transaction returns no attributes, and
    # its ADDs' new totals are only known from a read. Not part of what the change was.
    totals: tuple[CounterState, ...] = field(default=(), compare=False)

    @property
    def record_option(self) -> str | None:
        """The option the voter's record names after the change (in a multiple-choice poll, one pick)."""
        return self.choice if self.picks is None else min(self.picks, default=None)

    @property
    def counted(self) -> bool:
        """Whether any total changed."""
        return self.choice != self.previous

    def changed_counters(self) -> list[str]:
        """Names of the option counters this change moved."""
        return [
            option_counter_name(self.poll.id, o) for o in (self.previous, self.choice) if o and self.counted
        ]
