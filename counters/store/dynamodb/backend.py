"""The DynamoDB counter store: the CounterStore contract, each concern handed to its own module.

The store holds the table gateway (table.py) and this process's knowledge of hot counters
(shard_view.py). counter_writes.py owns the ADDs to a counter (increments and bot views, plain or
sharded, group-committed); counters.py, hot_counters.py, resets.py, history.py, polls.py, votes.py and
vote_reads.py do the rest, with items.py building and parsing every item.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from botocore.exceptions import ClientError

from counters import conf
from counters.domain import values
from counters.domain.page_rules import PageBudget
from counters.domain.visitors import VisitDay
from counters.exceptions import StoreUnavailable
from counters.store.base import CounterStore, StoreHooks
from counters.store.capabilities import STREAMS, WATCHED, StreamWiring
from counters.store.dynamodb import (
    counters,
    history,
    poll_resets,
    polls,
    resets,
    site_pages,
    starts,
    talks,
    tallies,
    visitors,
    vote_reads,
    votes,
)
from counters.store.dynamodb import hot_counters as hot
from counters.store.dynamodb.clients import build_clients, resolve_connection
from counters.store.dynamodb.counter_writes import IncrementWriter
from counters.store.dynamodb.outage import error_code
from counters.store.dynamodb.shard_view import ShardView
from counters.store.dynamodb.streams.every_stream import EveryStream
from counters.store.dynamodb.streams.lease import lease_status
from counters.store.dynamodb.table import Table
from counters.store.dynamodb.vote_memory import VoteMemory
from counters.store.dynamodb.watched import DynamoWatchedTables


class DynamoCounterStore(CounterStore):
    """Counters in one DynamoDB table; see docs/design.md for the item layout."""

    def __init__(
        self,
        *,
        client: Any,
        retrying_client: Any | None = None,
        table: str,
        commit_barrier: bool = False,
        embedded: bool = False,
        streams_client: Any | None = None,
    ) -> None:
        # `client` never resends (increments); `retrying_client` may (reads, idempotent writes).
        self.gateway = Table(
            single_shot=client,
            retrying=retrying_client or client,
            name=table,
            commit_barrier=commit_barrier,
            embedded=embedded,
        )
        self.shard_view = ShardView()
        # Every write to a counter, group-committed (see counter_writes.py).
        self.increments = IncrementWriter(self.gateway, self.shard_view)
        # Guesses that let a vote go straight to its transaction (see vote_memory.py).
        self.vote_memory = VoteMemory()
        # Reads the table's stream (streams/); None for a store built around given clients.
        self.streams = streams_client

    @classmethod
    def from_settings(cls, *, hooks: StoreHooks = StoreHooks()) -> DynamoCounterStore:  # noqa: B008
        """Clients for DYNAMODB_ENDPOINT_URL (or the embedded DynamoDB Local) and the settings' table."""
        connection = resolve_connection(hooks)
        clients = build_clients(connection)
        return cls(
            client=clients.single_shot,
            retrying_client=clients.retrying,
            table=conf.table_name(),
            commit_barrier=connection.commit_barrier,
            embedded=connection.embedded,
            streams_client=clients.streams,
        )

    @property
    def client(self) -> Any:
        """The client that never resends."""
        return self.gateway.single_shot

    @property
    def retrying(self) -> Any:
        """The client that may resend."""
        return self.gateway.retrying

    @property
    def table(self) -> str:
        """The table's name."""
        return self.gateway.name

    def close(self) -> None:
        """Close the clients' connection pools."""
        self.gateway.close()
        if self.streams is not None:
            self.streams.close()

    def ensure_table(self) -> bool:
        """Create the table if missing."""
        return self.gateway.ensure()

    # ---- optional capabilities (counters/store/capabilities.py) ----

    @property
    def capabilities(self) -> frozenset[str]:
        """Watched tables always; the table's stream when the store has a client to read it."""
        return frozenset({WATCHED, STREAMS} if self.streams is not None else {WATCHED})

    def stream_readers(self, wiring: StreamWiring) -> EveryStream:
        """Our table's stream, watched tables' streams and the poll of the rest (streams/every_stream.py)."""
        self.require(STREAMS)
        return EveryStream(self.gateway, self.streams, wiring)

    def stream_status(self) -> dict | None:
        """The lease item of our table's stream, read strongly consistently (streams/lease.py)."""
        self.require(STREAMS)
        try:
            return lease_status(self.gateway)
        except ClientError as exc:
            raise StoreUnavailable(f"The stream's lease could not be read: {error_code(exc)}.") from exc

    def watched_tables(self) -> DynamoWatchedTables:
        """Numbers in other tables shown as counters (watched.py)."""
        return DynamoWatchedTables(self.gateway)

    # ---- counters ----

    def define_counter(self, definition: values.CounterDefinition) -> bool:
        """Write the registry entry and the total item together, once."""
        return counters.define(self.gateway, definition)

    def move_starts(self) -> int:
        """One conditional UpdateItem per total item still without its start (see starts.py)."""
        return starts.move_starts(self.gateway, counters.counter_names(self.gateway))

    def increment(self, name: str, *, kind: str, by: int | None = None) -> values.CounterState:
        """Add to a counter and return the new total and version; concurrent adds share one UpdateItem."""
        return self.increments.increment(name, kind=kind, by=by)

    def get(self, name: str) -> values.CounterState:
        """Read one counter (strongly consistent); a hot counter's total is summed from one Query."""
        return counters.get(self.gateway, self.shard_view, name)

    def get_many(self, names: Iterable[str]) -> list[values.CounterState]:
        """Read several counters with BatchGetItem, in the order given."""
        return counters.get_many(self.gateway, self.shard_view, names)

    def counter_names(self) -> list[str]:
        """Names from the registry partition (a Query, never a Scan)."""
        return counters.counter_names(self.gateway)

    def set_badge_counts(self, name: str, *, enabled: bool) -> values.CounterState:
        """Set the total item's `badge_counts` flag, only on a registered counter."""
        return counters.set_badge_counts(self.gateway, self.shard_view, name, enabled=enabled)

    # ---- hot counters ----

    def make_hot(self, name: str, *, shards: int) -> values.CounterState:
        """Convert a counter to `shards` shards (or add shards) in one transaction, keeping its count."""
        return hot.make_hot(self.gateway, self.shard_view, name, shards=shards)

    def shard_count(self, name: str) -> int:
        """Shards this process knows `name` to have (no I/O)."""
        return self.shard_view.shard_count(name)

    # ---- history ----

    def add_to_bucket(self, name: str, bucket: str, count: int, *, expires_at: int) -> None:
        """One ADD on a bucket, sent once."""
        history.add_to_bucket(self.gateway, name, bucket, count, expires_at=expires_at)

    def read_buckets(self, name: str, *, first: str, last: str) -> dict[str, int]:
        """One eventually consistent Query of a bucket range."""
        return history.read_buckets(self.gateway, name, first=first, last=last)

    # ---- unique visitors and bot views ----

    def add_bot_view(self, name: str) -> values.CounterState:
        """One conditional ADD to `bot_views` on the item a view would go to, sent once and shared."""
        return self.increments.add_bot_view(name)

    def daily_salt(self, day: VisitDay, *, candidate: bytes) -> bytes:
        """The day's salt from one idempotent UpdateItem (`if_not_exists`)."""
        return visitors.daily_salt(self.gateway, day, candidate)

    def drop_salts(self, *, before: VisitDay) -> int:
        """Delete older days' salts: a Query of the salts' partition, one DeleteItem each."""
        return visitors.drop_salts(self.gateway, before)

    def record_visitor(self, name: str, visitor: str, *, day: VisitDay) -> bool:
        """The marker (if absent) and +1 on the day's count in one TransactWriteItems."""
        return visitors.record_visitor(self.gateway, self.shard_view, name, visitor, day=day)

    def visitors_on(self, names: Iterable[str], *, day: VisitDay) -> dict[str, int]:
        """The day's counts: one BatchGetItem, and a Query per hot counter."""
        return visitors.visitors_on(self.gateway, self.shard_view, names, day=day)

    # ---- pages created at their first view, and tallies per day ----

    def create_page(self, definition: values.CounterDefinition, *, cap: int) -> bool:
        """The page's items and the cap's conditional ADD in one transaction."""
        return site_pages.create_page(self.gateway, definition, cap=cap)

    def page_budget(self) -> PageBudget:
        """Pages created and refused, from one read."""
        return site_pages.page_budget(self.gateway)

    def add_to_tally(self, group: str, day: str, key: str, count: int, *, expires_at: int) -> None:
        """One ADD on a tally item, sent once."""
        tallies.add_to_tally(self.gateway, group, day, key, count, expires_at=expires_at)

    def read_tally(self, group: str, *, first_day: str, last_day: str) -> dict[tuple[str, str], int]:
        """One eventually consistent Query of the days' tally items."""
        return tallies.read_tally(self.gateway, group, first_day=first_day, last_day=last_day)

    # ---- resets ----

    def reset(self, name: str, *, expected_version: int, actor: str, reason: str) -> values.CounterState:
        """Set a counter to 0 if still at `expected_version`, with its audit item, in one transaction."""
        return resets.reset(
            self.gateway, self.shard_view, name, expected_version=expected_version, actor=actor, reason=reason
        )

    def reset_history(self, name: str, *, limit: int = 50) -> list[values.ResetRecord]:
        """The newest `limit` audit records of a counter."""
        return resets.reset_history(self.gateway, name, limit=limit)

    # ---- polls ----

    def define_poll(self, poll: values.PollDefinition) -> bool:
        """Register the poll, then a votes counter per option (each idempotent)."""
        return polls.define_poll(self.gateway, poll)

    def get_poll(self, poll_id: str) -> values.PollDefinition:
        """Read a poll's registry entry."""
        return polls.get_poll(self.gateway, poll_id)

    def poll_by_code(self, code: str) -> values.PollDefinition:
        """The join code's item, then the poll it names."""
        return polls.poll_by_code(self.gateway, code)

    def list_polls(self) -> list[values.PollDefinition]:
        """Every poll from its registry partition."""
        return polls.list_polls(self.gateway)

    def create_poll(self, poll: values.PollDefinition) -> values.PollDefinition:
        """Put the poll and every option counter in one transaction, each only if new."""
        return polls.create_poll(self.gateway, poll)

    def add_poll_option(self, poll_id: str, option: values.PollOption) -> values.PollDefinition:
        """Append an option if its id is new, with its counter, in one transaction."""
        return polls.add_poll_option(self.gateway, poll_id, option)

    def set_poll_closed(self, poll_id: str, *, closed: bool) -> values.PollDefinition:
        """Close or reopen a poll, only if it is not so already."""
        return polls.set_poll_closed(self.gateway, poll_id, closed=closed)

    def set_poll_revealed(self, poll_id: str, *, revealed: bool) -> values.PollDefinition:
        """Reveal or hide a poll's totals, only if they are not so already."""
        return polls.set_poll_revealed(self.gateway, poll_id, revealed=revealed)

    def set_poll_unlisted(self, poll_id: str, *, unlisted: bool) -> values.PollDefinition:
        """Take a poll off the public dashboard or put it back, only if it is not so already."""
        return polls.set_poll_unlisted(self.gateway, poll_id, unlisted=unlisted)

    def reset_poll(
        self, poll_id: str, *, expected_version: int, actor: str, reason: str
    ) -> values.PollDefinition:
        """Zero the poll's votes at the version seen, with its audit item, in one transaction."""
        return poll_resets.reset_poll(
            self.gateway, poll_id, expected_version=expected_version, actor=actor, reason=reason
        )

    def delete_poll(self, poll_id: str, *, expected_version: int, actor: str, reason: str) -> None:
        """Remove the poll, its code and option counters at the version seen, audited, in one transaction."""
        poll_resets.delete_poll(
            self.gateway, poll_id, expected_version=expected_version, actor=actor, reason=reason
        )

    def edit_poll(
        self, poll_id: str, *, expected_version: int, question: str, labels: dict[str, str]
    ) -> values.PollDefinition:
        """New question and labels at the version seen, while no option has taken a vote."""
        return poll_resets.edit_poll(
            self.gateway, poll_id, expected_version=expected_version, question=question, labels=labels
        )

    def set_poll_closes_at(self, poll_id: str, *, closes_at: str | None) -> values.PollDefinition:
        """Set or clear a poll's closing time in one conditional update."""
        return talks.set_poll_closes_at(self.gateway, poll_id, closes_at=closes_at)

    # ---- talks ----

    def create_talk(self, talk: values.Talk) -> values.Talk:
        """Put the talk and its join code in one transaction, each only if new."""
        return talks.create_talk(self.gateway, talk)

    def get_talk(self, talk_id: str) -> values.Talk:
        """Read a talk's registry entry."""
        return talks.get_talk(self.gateway, talk_id)

    def talk_by_code(self, code: str) -> values.Talk:
        """The join code's item, then the talk it names."""
        return talks.talk_by_code(self.gateway, code)

    def list_talks(self) -> list[values.Talk]:
        """Every talk from its registry partition."""
        return talks.list_talks(self.gateway)

    def save_talk(self, talk: values.Talk, *, expected_version: int) -> values.Talk:
        """One update of the talk, conditional on its version."""
        return talks.save_talk(self.gateway, talk, expected_version=expected_version)

    def poll_audit(self, poll_id: str, *, limit: int = 50) -> list[values.PollAudit]:
        """A poll's resets and deletion, newest first."""
        return poll_resets.poll_audit(self.gateway, poll_id, limit=limit)

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
        """Make `option` the voter's choice (None retracts), or add or remove one pick, in one
        transaction; retry on a race."""
        return votes.cast_vote(
            self.gateway,
            poll_id,
            voter=voter,
            option=option,
            claim=claim,
            memory=self.vote_memory,
            picked=picked,
        )

    def voter_counts(self, poll_ids: list[str]) -> dict[str, int]:
        """Each tally's count of voters, from one BatchGetItem."""
        return vote_reads.voter_counts(self.gateway, poll_ids)

    def voter_record(self, poll_id: str, voter: str) -> values.VoterRecord:
        """A voter's choice in a poll, strongly consistent."""
        return vote_reads.voter_record(self.gateway, poll_id, voter)

    def voter_picks(self, voter: str, poll_id: str) -> frozenset[str]:
        """The voter's record and the poll, from one consistent BatchGetItem."""
        return vote_reads.voter_picks(self.gateway, voter, poll_id)

    def voter_choices(self, voter: str, poll_ids: list[str]) -> dict[str, str]:
        """A voter's choice in each of several polls (polls without a vote are left out)."""
        return vote_reads.voter_choices(self.gateway, voter, poll_ids)

    def poll_voters(self, poll_id: str) -> dict[str, str]:
        """Every voter holding a vote in a poll, with their option."""
        return vote_reads.poll_voters(self.gateway, poll_id)

    def stored_reply(self, poll_id: str, key: str, *, now: int | None = None) -> values.StoredReply | None:
        """The live idempotency record of a key in a poll, or None."""
        return vote_reads.stored_reply(self.gateway, poll_id, key, now=now)
