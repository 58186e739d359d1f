"""An in-process counter store: the whole contract in dictionaries behind one lock, for fast tests.

It gives the answers and raises the errors the DynamoDB store does (tests/unit/store/test_contract.py
runs both), and keeps nothing across processes or restarts. One lock around every call makes each
call atomic, as each DynamoDB write or transaction is. Shards only spread DynamoDB's write load: a hot
counter here keeps one exact value and remembers its shard count, so that its version grows across a
reset by 1 + shards as it does there (every item's version is bumped).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace

from counters import conf
from counters.domain import values
from counters.domain.clock import now_iso
from counters.domain.names import option_counter_name
from counters.domain.page_rules import PageBudget
from counters.domain.poll_rules import (
    check_may_vote,
    check_option,
    keeps_voter_count,
    new_code,
    normalize_code,
    option_ids,
    pick_change,
    utc_now,
)
from counters.domain.polls import option_counter_definition
from counters.domain.shards import validate_shards
from counters.domain.visitors import VisitDay
from counters.exceptions import (
    Conflict,
    IdempotencyRace,
    InvalidInput,
    PageLimitReached,
    PollClosed,
    UnknownCounter,
    VersionConflict,
)
from counters.store.base import CounterStore, StoreHooks


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


class MemoryCounterStore(CounterStore):
    """Counters, polls, votes, resets and history of one process, lost when it ends."""

    def __init__(self, *, table: str = "counters") -> None:
        # Named like the DynamoDB table: code that keys per store (history tallies, sites) reads it.
        self.table = table
        self._lock = threading.Lock()
        self._created = False
        self._counters: dict[str, StoredCounter] = {}
        self._polls: dict[str, values.PollDefinition] = {}
        self._codes: dict[str, str] = {}  # join code -> poll id
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

    @classmethod
    def from_settings(cls, *, hooks: StoreHooks = StoreHooks()) -> MemoryCounterStore:  # noqa: B008
        """A fresh, empty store named after the settings' table."""
        return cls(table=conf.table_name())

    def ensure_table(self) -> bool:
        """Nothing to create; say True once, as a new table would."""
        with self._lock:
            created, self._created = not self._created, True
            return created

    # ---- counters ----

    def define_counter(self, definition: values.CounterDefinition) -> bool:
        """Register a counter unless one of that name exists."""
        if definition.shards:
            validate_shards(definition.shards)
        with self._lock:
            return self._define(definition)

    def _define(self, definition: values.CounterDefinition) -> bool:
        """Register a counter (the caller holds the lock); False if the name is taken."""
        if definition.name in self._counters:
            return False
        self._counters[definition.name] = StoredCounter(
            definition=definition, value=definition.start, shards=definition.shards
        )
        return True

    def move_starts(self) -> int:
        """Nothing to move: a counter's value holds its start from its definition on."""
        return 0

    def increment(self, name: str, *, kind: str, by: int | None = None) -> values.CounterState:
        """Add `by` (default: the step) to a registered counter of `kind`."""
        with self._lock:
            counter = self._counters.get(name)
            if counter is None or counter.definition.kind != kind:
                raise UnknownCounter(f"There is no {kind} counter named {name!r}.")
            counter.add(counter.definition.step if by is None else by, now_iso())
            return counter.written()

    def get(self, name: str) -> values.CounterState:
        """One counter's state."""
        with self._lock:
            return self._counter(name).state()

    def _counter(self, name: str) -> StoredCounter:
        """A registered counter (the caller holds the lock); UnknownCounter otherwise."""
        counter = self._counters.get(name)
        if counter is None:
            raise UnknownCounter(f"There is no counter named {name!r}.")
        return counter

    def get_many(self, names: Iterable[str]) -> list[values.CounterState]:
        """Registered counters among `names`, in the order given, each once."""
        with self._lock:
            return [self._counters[n].state() for n in dict.fromkeys(names) if n in self._counters]

    def counter_names(self) -> list[str]:
        """Every registered name, sorted."""
        with self._lock:
            return sorted(self._counters)

    def set_badge_counts(self, name: str, *, enabled: bool) -> values.CounterState:
        """Keep the choice in the counter's definition."""
        with self._lock:
            counter = self._counter(name)
            counter.definition = replace(counter.definition, badge_counts=enabled)
            return counter.state()

    # ---- hot counters ----

    def make_hot(self, name: str, *, shards: int) -> values.CounterState:
        """Record a larger shard count; the value stays as it is."""
        shards = validate_shards(shards)
        with self._lock:
            counter = self._counter(name)
            if shards < counter.shards:
                raise InvalidInput(f"A hot counter's shards can only grow; {name!r} has {counter.shards}.")
            counter.shards = shards
            return counter.state()

    def shard_count(self, name: str) -> int:
        """The counter's shard count (this store is the only process, so it always knows)."""
        with self._lock:
            counter = self._counters.get(name)
            return counter.shards if counter else 0

    # ---- history ----

    def add_to_bucket(self, name: str, bucket: str, count: int, *, expires_at: int) -> None:
        """Add to a bucket's count and record when it expires."""
        with self._lock:
            buckets = self._buckets.setdefault(name, {})
            buckets[bucket] = (buckets.get(bucket, (0, 0))[0] + count, expires_at)

    def read_buckets(self, name: str, *, first: str, last: str) -> dict[str, int]:
        """Counts of the buckets from `first` to `last`, compared as their sort keys are."""
        with self._lock:
            buckets = self._buckets.get(name, {})
            return {key: buckets[key][0] for key in sorted(buckets) if first <= key <= last}

    # ---- unique visitors and bot views ----

    def add_bot_view(self, name: str) -> values.CounterState:
        """Add one to a view counter's bot tally; value, version and updated_at stay."""
        with self._lock:
            counter = self._counters.get(name)
            if counter is None or counter.definition.kind != "views":
                raise UnknownCounter(f"There is no views counter named {name!r}.")
            counter.bot_views += 1
            return counter.state()

    def daily_salt(self, day: VisitDay, *, candidate: bytes) -> bytes:
        """The day's salt, `candidate` if it had none."""
        with self._lock:
            return self._salts.setdefault(day.key, candidate)

    def drop_salts(self, *, before: VisitDay) -> int:
        """Forget the salts of the days before `before`."""
        with self._lock:
            old = [key for key in self._salts if key < before.key]
            for key in old:
                del self._salts[key]
            return len(old)

    def record_visitor(self, name: str, visitor: str, *, day: VisitDay) -> bool:
        """Mark the visitor and count them in the day's bucket, unless marked already."""
        with self._lock:
            marker = (name, day.key, visitor)
            if marker in self._seen:
                return False
            self._seen.add(marker)
            buckets = self._buckets.setdefault(name, {})
            buckets[day.key] = (buckets.get(day.key, (0, 0))[0] + 1, day.count_expires_at)
            return True

    def visitors_on(self, names: Iterable[str], *, day: VisitDay) -> dict[str, int]:
        """The day's count of each counter that has one."""
        with self._lock:
            counts = {name: self._buckets.get(name, {}).get(day.key, (0, 0))[0] for name in names}
            return {name: count for name, count in counts.items() if count}

    # ---- pages created at their first view, and tallies per day ----

    def create_page(self, definition: values.CounterDefinition, *, cap: int) -> bool:
        """Register the page's counter unless it exists, while fewer than `cap` pages were created."""
        with self._lock:
            if definition.name in self._counters:
                return False
            if self._pages.created >= cap:
                self._pages = replace(self._pages, refused=self._pages.refused + 1)
                raise PageLimitReached(f"This site counts at most {cap} pages created at their first view.")
            self._pages = replace(self._pages, created=self._pages.created + 1)
            return self._define(definition)

    def page_budget(self) -> PageBudget:
        """Pages created and refused so far."""
        with self._lock:
            return self._pages

    def add_to_tally(self, group: str, day: str, key: str, count: int, *, expires_at: int) -> None:
        """Add to one key of a day's tally (kept for the process's life: nothing expires here)."""
        with self._lock:
            ref = (group, day, key)
            self._tallies[ref] = self._tallies.get(ref, 0) + count

    def read_tally(self, group: str, *, first_day: str, last_day: str) -> dict[tuple[str, str], int]:
        """Counts per (day, key) of a group's days from `first_day` to `last_day`."""
        with self._lock:
            return {
                (day, key): count
                for (of, day, key), count in self._tallies.items()
                if of == group and first_day <= day <= last_day and count
            }

    # ---- resets ----

    def reset(self, name: str, *, expected_version: int, actor: str, reason: str) -> values.CounterState:
        """Zero the counter if still at `expected_version` and keep an audit record."""
        with self._lock:
            counter = self._counter(name)
            current = counter.state()
            if current.version != expected_version:
                raise VersionConflict(
                    f"{name} changed: it is now {current.value} at version {current.version}. "
                    "Look again and confirm the reset.",
                    current=current,
                )
            now = now_iso()
            # DynamoDB bumps the version of the total and of every shard item.
            counter.value, counter.version, counter.updated_at = 0, current.version + 1 + counter.shards, now
            self._resets.setdefault(name, []).append(
                values.ResetRecord(
                    name=name,
                    at=now,
                    actor=actor,
                    reason=reason,
                    old_value=current.value,
                    old_version=current.version,
                    new_version=counter.version,
                )
            )
            return counter.state()

    def reset_history(self, name: str, *, limit: int = 50) -> list[values.ResetRecord]:
        """The newest `limit` audit records, newest first."""
        with self._lock:
            return list(reversed(self._resets.get(name, [])))[:limit]

    # ---- polls ----

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
        if poll.code and poll.code in self._codes:
            raise Conflict(f"The join code {poll.code} is taken by another poll.")
        code = poll.code
        while not code or code in self._codes:
            code = new_code()
        poll = self._polls[poll.id] = replace(poll, code=code)
        self._codes[code] = poll.id
        return poll

    def poll_by_code(self, code: str) -> values.PollDefinition:
        """The poll a join code opens."""
        try:
            code = normalize_code(code)
        except InvalidInput as exc:
            raise UnknownCounter(f"There is no poll with the code {code!r}.") from exc
        with self._lock:
            if code not in self._codes:
                raise UnknownCounter(f"There is no poll with the code {code!r}.")
            return self._polls[self._codes[code]]

    def get_poll(self, poll_id: str) -> values.PollDefinition:
        """One poll's definition."""
        with self._lock:
            return self._poll(poll_id)

    def _poll(self, poll_id: str) -> values.PollDefinition:
        """A registered poll (the caller holds the lock); UnknownCounter otherwise."""
        poll = self._polls.get(poll_id)
        if poll is None:
            raise UnknownCounter(f"There is no poll named {poll_id!r}.")
        return poll

    def list_polls(self) -> list[values.PollDefinition]:
        """Every poll, sorted by id."""
        with self._lock:
            return [self._polls[poll_id] for poll_id in sorted(self._polls)]

    def create_poll(self, poll: values.PollDefinition) -> values.PollDefinition:
        """Register a new poll and its option counters, or nothing if any of them exists."""
        with self._lock:
            if poll.id in self._polls:
                raise Conflict(f"A poll named {poll.id!r} exists already.")
            for option in poll.options:
                if (name := option_counter_name(poll.id, option.id)) in self._counters:
                    raise Conflict(f"A counter named {name!r} exists already; pick other option ids.")
            poll = self._put_poll(poll)
            for option in poll.options:
                self._define(option_counter_definition(poll, option))
            return poll

    def add_poll_option(self, poll_id: str, option: values.PollOption) -> values.PollDefinition:
        """Append an option with a new id, and its counter."""
        with self._lock:
            poll = self._poll(poll_id)
            if any(existing.id == option.id for existing in poll.options):
                raise Conflict(f"Poll {poll_id!r} already has an option {option.id!r}.")
            if (name := option_counter_name(poll_id, option.id)) in self._counters:
                raise Conflict(f"A counter named {name!r} exists already; pick another option id.")
            poll = self._polls[poll_id] = replace(
                poll, options=(*poll.options, option), version=poll.version + 1
            )
            self._define(option_counter_definition(poll, option))
            return poll

    def set_poll_closed(self, poll_id: str, *, closed: bool) -> values.PollDefinition:
        """Close or reopen a poll that is the other way now."""
        with self._lock:
            poll = self._poll(poll_id)
            if poll.closed == closed:
                raise Conflict(f"Poll {poll_id!r} is already {'closed' if closed else 'open'}.")
            poll = self._polls[poll_id] = replace(poll, closed=closed, version=poll.version + 1)
            return poll

    def set_poll_revealed(self, poll_id: str, *, revealed: bool) -> values.PollDefinition:
        """Reveal or hide a poll's totals that are the other way now."""
        with self._lock:
            poll = self._poll(poll_id)
            if poll.revealed == revealed:
                raise Conflict(f"Poll {poll_id!r} is already {'revealed' if revealed else 'hidden'}.")
            poll = self._polls[poll_id] = replace(poll, revealed=revealed, version=poll.version + 1)
            return poll

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
                raise Conflict("The poll has taken votes: its question and options are locked.")
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
                f"Poll {poll_id} changed: it is at version {poll.version} now. Look again and confirm.",
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

    # ---- votes ----

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
            check_may_vote(poll, voter=voter, now=utc_now())
            check_option(poll_id, option, option_ids(poll))
            change = self._decide(poll, voter, option, picked)
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

    def _decide(
        self, poll: values.PollDefinition, voter: str, option: str | None, picked: bool | None
    ) -> values.VoteChange:
        """The change asked for, from the voter's record (the caller holds the lock)."""
        held = self._voters.get(poll.id, {}).get(voter)
        if poll.kind != "multi":
            return values.VoteChange(poll=poll, voter=voter, choice=option, previous=held)
        if option is None or picked is None:
            raise InvalidInput('In this poll, add or remove one pick: {"option": "<id>", "picked": true}.')
        record = values.VoterRecord(option=held, rev=0, picks=self._picks.get((poll.id, voter), frozenset()))
        return pick_change(poll, record, voter=voter, option=option, picked=picked)

    def _count_voter(self, poll: values.PollDefinition, voter: str, change: values.VoteChange) -> None:
        """Count a voter joining or leaving the poll's voters; PollClosed once it holds max_voters."""
        if not keeps_voter_count(poll):
            return
        before = bool(self._voters.get(poll.id, {}).get(voter))
        after = bool(change.record_option)
        count = self._voter_counts.get(poll.id, 0)
        if after and not before and poll.max_voters is not None and count >= poll.max_voters:
            raise PollClosed(f"The poll {poll.id!r} has all the voters it takes.")
        self._voter_counts[poll.id] = count + (after - before)

    def voter_counts(self, poll_ids: list[str]) -> dict[str, int]:
        """The count of each poll that keeps one."""
        with self._lock:
            return {
                poll_id: self._voter_counts[poll_id] for poll_id in poll_ids if poll_id in self._voter_counts
            }

    def _move_vote(self, change: values.VoteChange) -> values.VoteChange:
        """+1 on the new option, -1 on the old one unless it is at 0 already (the caller holds the lock)."""
        now = now_iso()
        if change.choice:
            self._counters[option_counter_name(change.poll.id, change.choice)].add(1, now)
        if change.previous:
            old = self._counters[option_counter_name(change.poll.id, change.previous)]
            # Staff may have reset the old total: the vote still moves, the total stays at 0 untouched.
            if old.value < 1:
                return replace(change, lowered=False)
            old.add(-1, now)
        return change

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

    def _live_record(self, poll_id: str, key: str, now: int) -> IdempotencyRecord | None:
        """A key's record in a poll if it has not expired by `now` (the caller holds the lock)."""
        record = self._idempotency.get((poll_id, key))
        return record if record is not None and record.expires_at >= now else None
