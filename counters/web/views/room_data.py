"""What the room pages show of a poll: found by its join code, totals only where the asker may see them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from counters import selectors
from counters.domain import poll_rules, talks
from counters.domain.values import PollDefinition, Talk
from counters.selectors import talks as talk_reads
from counters.store import get_store

CODE_NOTE = "5 letters and digits; there is no letter O, I or L, and no digit 0 or 1."
# What people type inside a code they read: spaces, dashes, dots.
SEPARATORS = re.compile(r"[\s\-_.]+")
# A presence name no page or counter can take (':' is in no slug): "people on this poll's page now".
PRESENCE_PREFIX = "room:"


def normalise_code(typed: object) -> str:
    """A typed join code in its stored form, separators dropped; InvalidInput if it cannot be one."""
    if not isinstance(typed, str) or len(typed) > 40:
        return poll_rules.normalize_code(None)
    return poll_rules.normalize_code(SEPARATORS.sub("", typed))


def poll_for_code(typed: object) -> PollDefinition:
    """The poll a join code names, in any case; InvalidInput or UnknownCounter otherwise."""
    return get_store().poll_by_code(normalise_code(typed))


def talk_for_code(typed: object) -> Talk:
    """The talk a join code names, in any case; InvalidInput or UnknownCounter otherwise."""
    return talk_reads.talk_by_code(normalise_code(typed))


def presence_name(poll: PollDefinition) -> str:
    """The name the audience page's socket counts itself under (viewing now)."""
    return f"{PRESENCE_PREFIX}{poll.id}"


@dataclass(frozen=True)
class RoomOption:
    """One option as a room page draws it; votes None when the asker may not see them."""

    id: str
    label: str
    counter: str
    votes: int | None
    version: int | None
    share: int = 0  # whole percent of all votes


@dataclass(frozen=True)
class RoomView:
    """A poll as one asker sees it on a room page."""

    poll: dict
    options: tuple[RoomOption, ...]
    picks: tuple[str, ...] = field(default_factory=tuple)

    @property
    def visible(self) -> bool:
        """Whether the totals are shown to this asker."""
        return bool(self.poll.get("results_visible"))

    @property
    def total(self) -> int:
        """Votes across every option (0 while hidden)."""
        return sum(option.votes or 0 for option in self.options)

    @property
    def average(self) -> str:
        """A rating poll's mean rating to one decimal ("" while hidden or without votes)."""
        if self.poll.get("kind") != "rating" or not self.visible or not self.total:
            return ""
        return f"{sum(int(o.id) * (o.votes or 0) for o in self.options) / self.total:.1f}"


def room_options(poll: dict) -> tuple[RoomOption, ...]:
    """The poll's options with their totals and shares, if the answer carried them."""
    options = poll.get("options", [])
    total = sum(option.get("votes", 0) for option in options)
    return tuple(
        RoomOption(
            id=option["id"],
            label=option["label"],
            counter=option["counter"],
            votes=option.get("votes"),
            version=option.get("version") if "votes" in option else None,
            share=round(100 * option["votes"] / total) if total and "votes" in option else 0,
        )
        for option in options
    )


def room_view(poll: PollDefinition, *, staff: bool, voter: str) -> RoomView:
    """The poll as the API shows this asker (totals only where visible to them), with the voter's picks."""
    held = selectors.voter_picks(voter=voter, poll_id=poll.id)
    picks = tuple(option.id for option in poll.options if option.id in held)
    totals = selectors.poll_totals_for([poll])[0]
    shown = selectors.poll_for_asker(totals, staff=staff, has_voted=bool(picks))
    return RoomView(poll=shown, options=room_options(shown), picks=picks)


def polls_with_codes() -> list[PollDefinition]:
    """Every poll that has a join code, in the poll list's order (by id)."""
    return [poll for poll in get_store().list_polls() if poll.code]


def closed_now(polls: list[PollDefinition]) -> set[str]:
    """Ids of the polls that take no votes now: closed by staff, by their closing time or by their voters."""
    return {totals.id for totals in selectors.poll_totals_for(polls) if totals.closed} if polls else set()


def neighbours(
    poll: PollDefinition, talk: Talk | None = None
) -> tuple[PollDefinition | None, PollDefinition | None]:
    """The polls before and after this one in its talk's order, or else in the poll list (for the
    presenter's N and P keys)."""
    if talk is not None:
        before, after = talks.neighbours(talk, poll.id)
        return (talk_reads.poll_get(before) if before else None), (
            talk_reads.poll_get(after) if after else None
        )
    polls = polls_with_codes()
    ids = [other.id for other in polls]
    if poll.id not in ids:
        return None, None
    at = ids.index(poll.id)
    return (polls[at - 1] if at > 0 else None), (polls[at + 1] if at + 1 < len(polls) else None)
