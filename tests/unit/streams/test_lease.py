"""The stream's lease on DynamoDB Local, on a clock the test moves: its calls per hour, and how soon a
standby follows a holder that died or gave the lease up."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from counters import conf
from counters.store.dynamodb.streams.lease import RENEW, Lease, calls_per_hour, lease_status
from counters.store.dynamodb.table import Table
from tests.unit.streams.conftest import renewed_at

# docs/streams.md: a standby looks every eighth of the lease, so it follows a dead holder within 9/8 of
# the lease after the holder's last renewal.
LOOK = 1 / 8
# The clock moves this much between two rounds (a binary fraction: its sums are exact).
STEP = 1 / 64


class Clock:
    """A wall clock that moves only when told."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Counted:
    """A DynamoDB client that counts its calls by operation, per owner."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._client, name)

        def counted(**kwargs: Any) -> Any:
            self.calls[name] += 1
            return method(**kwargs)

        return counted


def leases(store, clock: Clock, seconds: float, *owners: str) -> list[tuple[Lease, Counted]]:
    """A lease of the store's stream per owner, each on a client of its own that counts its calls."""
    made = []
    for owner in owners:
        client = Counted(store.retrying)
        table = Table(single_shot=client, retrying=client, name=store.table)
        made.append((Lease(table, owner=owner, seconds=seconds, clock=clock), client))
    return made


def run(clock: Clock, until: float, *holding: Lease) -> None:
    """Let each lease's worker run its rounds until the clock reads `until`."""
    while clock.now < until:
        for lease in holding:
            lease.hold()
        clock.now += STEP


def test_the_lease_costs_what_the_docs_say(store):
    seconds = conf.stream_lease_seconds()
    clock = Clock(1_800_000_000.0)
    (holder, holder_calls), (standby, standby_calls) = leases(store, clock, seconds, "holder", "standby")
    assert holder.hold() and not standby.hold()
    holder_calls.calls.clear()
    standby_calls.calls.clear()
    renewals = 30  # over this many of the holder's renewal intervals, the calls are counted
    window = renewals * seconds * RENEW
    run(clock, clock.now + window, holder, standby)
    # The documented figures (docs/streams.md, docs/operations.md) are those of the default lease.
    assert seconds == 2.0
    assert calls_per_hour(seconds) == {"holder": {"PutItem": 5400}, "standby": {"GetItem": 14400}}
    assert abs(holder_calls.calls["put_item"] - renewals) <= 1
    assert abs(standby_calls.calls["get_item"] - window / (seconds * LOOK)) <= 1
    assert set(holder_calls.calls) == {"put_item"} and set(standby_calls.calls) == {"get_item"}


@pytest.mark.parametrize("seconds", [2.0, 5.0])
def test_a_standby_follows_a_dead_holder_within_the_lease_and_one_poll(store, seconds):
    clock = Clock(1_800_000_000.0)
    (holder, holder_calls), (standby, _) = leases(store, clock, seconds, "holder", "standby")
    run(clock, clock.now + 3 * seconds, holder, standby)
    assert holder.held and not standby.held, "one reader at a time"
    last_renewal = renewed_at(store, seconds)
    renewals = holder_calls.calls["put_item"]
    # The holder dies: it renews no more. The standby takes over once the lease expired, at its next look.
    died = clock.now
    while not standby.held and clock.now < died + 4 * seconds:
        run(clock, clock.now + STEP, standby)
    took_over = clock.now
    assert holder_calls.calls["put_item"] == renewals
    assert standby.held and lease_status(store.gateway, clock=clock)["owner"] == "standby"
    assert last_renewal + seconds < took_over <= last_renewal + seconds * (1 + LOOK) + 2 * STEP
    assert took_over - died <= seconds * (1 + LOOK) + 2 * STEP


def test_a_lease_given_up_is_taken_at_the_standbys_next_look(store):
    seconds = conf.stream_lease_seconds()
    clock = Clock(1_800_000_000.0)
    (holder, _), (standby, _) = leases(store, clock, seconds, "holder", "standby")
    run(clock, clock.now + seconds, holder, standby)
    holder.release()
    released = clock.now
    while not standby.held and clock.now < released + seconds:
        run(clock, clock.now + STEP, standby)
    assert standby.held and clock.now - released <= seconds * LOOK + 2 * STEP
