"""Talks as the pages read them: every talk, a talk's polls in its order, the talk a poll belongs to."""

from __future__ import annotations

from counters.domain.values import PollDefinition, Talk
from counters.store import get_store


def talk_list() -> list[Talk]:
    """Every talk, sorted by id."""
    return get_store().list_talks()


def talk_polls(talk: Talk) -> list[PollDefinition]:
    """The talk's polls in its order (a poll deleted in the admin is left out)."""
    polls = {poll.id: poll for poll in get_store().list_polls()}
    return [polls[poll_id] for poll_id in talk.poll_ids if poll_id in polls]


def talk_of_poll(poll_id: str) -> Talk | None:
    """The talk holding this poll, or None (a poll made in the admin belongs to none)."""
    return next((talk for talk in get_store().list_talks() if poll_id in talk.poll_ids), None)


def talk_by_code(code: str) -> Talk:
    """The talk a join code opens; UnknownCounter if none."""
    return get_store().talk_by_code(code)


def talk_get(talk_id: str) -> Talk:
    """One talk; UnknownCounter if none."""
    return get_store().get_talk(talk_id)


def poll_get(poll_id: str) -> PollDefinition:
    """One poll's definition; UnknownCounter if none."""
    return get_store().get_poll(poll_id)
