"""Reads of polls: their options with totals, and a voter's choices."""

from __future__ import annotations

from dataclasses import dataclass

from counters.domain.names import option_counter_name, validate_slug
from counters.domain.values import CounterState, PollDefinition
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
    closed: bool
    options: tuple[OptionTotal, ...]

    @property
    def total_votes(self) -> int:
        """Votes across every option."""
        return sum(option.votes for option in self.options)

    def as_dict(self) -> dict:
        """Serialise for the JSON API."""
        return {
            "id": self.id,
            "question": self.question,
            "closed": self.closed,
            "total": self.total_votes,
            "options": [option.__dict__ for option in self.options],
        }


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
    return PollTotals(id=poll.id, question=poll.question, closed=poll.closed, options=tuple(options))


def poll_totals_for(polls: list[PollDefinition]) -> list[PollTotals]:
    """Attach option totals to polls with one batched read."""
    names = [name for poll in polls for name in option_counters(poll)]
    states = {state.name: state for state in get_store().get_many(names)}
    return [poll_totals_from_states(poll, states) for poll in polls]


def poll_list() -> list[PollTotals]:
    """Every poll with its totals."""
    return poll_totals_for(get_store().list_polls())


def poll_totals(*, poll_id: str) -> PollTotals:
    """One poll with its totals."""
    return poll_totals_for([get_store().get_poll(validate_slug(poll_id, what="poll id"))])[0]


def voter_choices(*, voter: str, poll_ids: list[str]) -> dict[str, str]:
    """The option a voter holds in each of these polls (polls without their vote are left out)."""
    return get_store().voter_choices(voter, poll_ids) if poll_ids else {}
