"""Reads of polls: their options with totals, a voter's choices, and what an asker may see of them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime

from counters.domain.names import option_counter_name, validate_slug
from counters.domain.poll_rules import is_closed, keeps_voter_count, results_visible
from counters.domain.values import CounterState, PollDefinition
from counters.runtime import runtime
from counters.store import get_store


@dataclass(frozen=True)
class OptionTotal:
    """One poll option with its vote count."""

    id: str
    label: str
    counter: str
    votes: int
    version: int


@dataclass(frozen=True)
class PollTotals:
    """A poll with the totals of its options."""

    id: str
    question: str
    closed: bool  # as read by poll_totals_for: closed now, by staff, by its closing time or by its voters
    options: tuple[OptionTotal, ...]
    definition: PollDefinition | None = None
    # Voters holding a vote, when the store counts them apart (a multiple-choice poll); else the total.
    counted_voters: int | None = None

    @property
    def total_votes(self) -> int:
        """Votes across every option."""
        return sum(option.votes for option in self.options)

    @property
    def poll(self) -> PollDefinition:
        """The poll's definition."""
        return self.definition or PollDefinition(id=self.id, question=self.question, closed=self.closed)

    @property
    def voters(self) -> int:
        """Voters holding a vote: one vote each, except in a multiple-choice poll."""
        return self.total_votes if self.counted_voters is None else self.counted_voters

    @property
    def closed_by_rule(self) -> bool:
        """Whether it is closed by its closing time or its voter limit rather than by staff (no reopening)."""
        return self.closed and not self.poll.closed

    def closed_at(self, now: datetime) -> bool:
        """Whether the poll takes no votes at `now` (closed by staff, by its time or by its voters)."""
        return is_closed(self.poll, now=now, voters=self.voters)

    def visible_to(self, *, staff: bool, has_voted: bool, now: datetime) -> bool:
        """Whether an asker may see the option totals."""
        return results_visible(self.poll, staff=staff, has_voted=has_voted, now=now, voters=self.voters)

    @property
    def average(self) -> float | None:
        """A rating poll's mean rating (None without votes or for another kind)."""
        if self.poll.kind != "rating" or not self.total_votes:
            return None
        return round(sum(int(o.id) * o.votes for o in self.options) / self.total_votes, 2)

    def as_dict(self, *, visible: bool = True, now: datetime | None = None) -> dict:
        """Serialise for the JSON API and live frames; without any total when `visible` is False."""
        poll, now = self.poll, now or now_utc()
        data = {
            "id": self.id,
            "question": self.question,
            "closed": self.closed_at(now),
            "code": poll.code,
            "kind": poll.kind,
            "max_picks": poll.max_picks,
            "results": poll.results,
            "revealed": poll.revealed,
            "closes_at": poll.closes_at,
            "max_voters": poll.max_voters,
            "audience": poll.audience,
            "dashboard": not poll.unlisted,
            "version": poll.version,
            "voters": self.voters,
            "results_visible": visible,
        }
        if not visible:
            # Not even an option's version: it grows with every vote on it.
            options = [{"id": o.id, "label": o.label, "counter": o.counter} for o in self.options]
            return {**data, "options": options}
        data.update(total=self.total_votes, options=[option.__dict__ for option in self.options])
        if poll.kind == "rating":
            data["average"] = self.average
        return data


def now_utc() -> datetime:
    """The time now from the runtime's clock (a test may hold it still)."""
    return datetime.fromtimestamp(runtime().clock.time(), UTC)


def option_counters(poll: PollDefinition) -> list[str]:
    """Names of a poll's option counters, in option order."""
    return [option_counter_name(poll.id, option.id) for option in poll.options]


def poll_totals_from_states(poll: PollDefinition, states: dict[str, CounterState]) -> PollTotals:
    """A poll with the totals found in `states` (by counter name); missing ones show 0."""
    options = []
    for option in poll.options:
        counter = option_counter_name(poll.id, option.id)
        state = states.get(counter)
        options.append(
            OptionTotal(
                id=option.id,
                label=option.label,
                counter=counter,
                votes=state.value if state else 0,
                version=state.version if state else 0,
            )
        )
    return PollTotals(
        id=poll.id, question=poll.question, closed=poll.closed, options=tuple(options), definition=poll
    )


def poll_totals_for(polls: list[PollDefinition]) -> list[PollTotals]:
    """Attach option totals (and the voter counts the store keeps) to polls with batched reads; each is
    `closed` as it is now, so a poll past its closing time reads closed on every page."""
    store = get_store()
    names = [name for poll in polls for name in option_counters(poll)]
    states = {state.name: state for state in store.get_many(names)}
    counted = [poll.id for poll in polls if keeps_voter_count(poll)]
    voters = store.voter_counts(counted) if counted else {}
    read = [
        replace(poll_totals_from_states(poll, states), counted_voters=voters.get(poll.id, 0))
        if poll.id in counted
        else poll_totals_from_states(poll, states)
        for poll in polls
    ]
    now = now_utc()
    return [replace(totals, closed=totals.closed_at(now)) for totals in read]


def poll_list() -> list[PollTotals]:
    """Every poll with its totals."""
    return poll_totals_for(get_store().list_polls())


def dashboard_polls() -> list[PollTotals]:
    """The polls the public dashboard lists: every one not kept off it."""
    return [totals for totals in poll_list() if not totals.poll.unlisted]


def poll_totals(*, poll_id: str) -> PollTotals:
    """One poll with its totals."""
    return poll_totals_for([get_store().get_poll(validate_slug(poll_id, what="poll id"))])[0]


def voter_choices(*, voter: str, poll_ids: list[str]) -> dict[str, str]:
    """The option a voter holds in each of these polls (polls without their vote are left out)."""
    return get_store().voter_choices(voter, poll_ids) if poll_ids else {}


def voter_picks(*, voter: str, poll_id: str) -> frozenset[str]:
    """The options a voter holds in a poll (every pick of a multiple-choice poll)."""
    return get_store().voter_picks(voter, poll_id)


def poll_for_asker(totals: PollTotals, *, staff: bool, has_voted: bool) -> dict:
    """A poll as an asker may see it: totals only where the poll's rule (or staff) allows."""
    now = now_utc()
    return totals.as_dict(visible=totals.visible_to(staff=staff, has_voted=has_voted, now=now), now=now)


def hidden_counters(polls: list[PollTotals], *, staff: bool, choices: dict[str, object]) -> set[str]:
    """The option counters of `polls` whose totals the asker may not see (`choices`: their votes)."""
    if staff:
        return set()
    now = now_utc()
    return {
        option.counter
        for totals in polls
        if not totals.visible_to(staff=False, has_voted=bool(choices.get(totals.id)), now=now)
        for option in totals.options
    }
