"""A talk's rules without I/O: ids derived from text, options one per line, moves in the talk's order."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from counters.domain.names import MAX_NAME_LENGTH, validate_text
from counters.domain.poll_rules import closing_time
from counters.domain.values import Talk, TalkPoll
from counters.exceptions import InvalidInput

MAX_TITLE_LENGTH = 200
# Room for "-<n>" after a derived id, so a unique one stays within a slug's length.
STEM_LENGTH = MAX_NAME_LENGTH - 4
MAX_TALK_POLLS = 50
MAX_MINUTES = 24 * 60
MOVES = {"up": -1, "down": 1}


def slug_of(text: str, *, fallback: str) -> str:
    """A slug from free text: accents dropped, lowercase, runs of anything else as one '-'."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")[:STEM_LENGTH].strip("-")
    return slug or fallback


def unique_id(text: str, *, taken: set[str], fallback: str) -> str:
    """A slug of `text` no id in `taken` has: the slug, or the slug with -2, -3, ... after it."""
    stem = slug_of(text, fallback=fallback)
    candidate, number = stem, 2
    while candidate in taken:
        candidate, number = f"{stem}-{number}", number + 1
    return candidate


def validate_title(value: object) -> str:
    """A talk's title, trimmed; InvalidInput if empty or too long."""
    return validate_text(value, what="talk title", limit=MAX_TITLE_LENGTH)


def options_from_lines(text: object) -> list[tuple[str, str]]:
    """Options typed one per line, as (id, label) pairs: blank lines dropped, ids derived and distinct."""
    if not isinstance(text, str):
        raise InvalidInput("Type the options one per line.")
    taken: set[str] = set()
    options = []
    for number, line in enumerate((line.strip() for line in text.splitlines() if line.strip()), 1):
        option_id = unique_id(line, taken=taken, fallback=f"option-{number}")
        taken.add(option_id)
        options.append((option_id, line))
    return options


def validate_minutes(value: object) -> int | None:
    """Minutes a poll stays open once opened (None: no timer); InvalidInput past a day or below one."""
    if value in (None, ""):
        return None
    try:
        minutes = int(str(value).strip())
    except ValueError as exc:
        raise InvalidInput("Minutes after it opens is a whole number, such as 2.") from exc
    if not 1 <= minutes <= MAX_MINUTES:
        raise InvalidInput(f"Minutes after it opens is a whole number from 1 to {MAX_MINUTES}.")
    return minutes


def with_poll(talk: Talk, entry: TalkPoll, *, after: str | None = None) -> Talk:
    """The talk with `entry` added at its end, or just after the poll `after`."""
    if len(talk.polls) >= MAX_TALK_POLLS:
        raise InvalidInput(f"A talk holds at most {MAX_TALK_POLLS} polls.")
    polls = list(talk.polls)
    at = talk.poll_ids.index(after) + 1 if after in talk.poll_ids else len(polls)
    polls.insert(at, entry)
    return replace(talk, polls=tuple(polls))


def moved(talk: Talk, poll_id: str, direction: str) -> Talk:
    """The talk with one poll moved one place up or down (unchanged at either end)."""
    if direction not in MOVES or poll_id not in talk.poll_ids:
        raise InvalidInput("Move a poll of this talk up or down.")
    polls = list(talk.polls)
    at = talk.poll_ids.index(poll_id)
    to = min(max(at + MOVES[direction], 0), len(polls) - 1)
    polls.insert(to, polls.pop(at))
    return replace(talk, polls=tuple(polls))


def reordered(talk: Talk, order: list[str]) -> Talk:
    """The talk's polls in `order`, which must name each of them once (a drag's result)."""
    if sorted(order) != sorted(talk.poll_ids):
        raise InvalidInput("A new order names each poll of the talk once.")
    entries = {entry.poll: entry for entry in talk.polls}
    return replace(talk, polls=tuple(entries[poll_id] for poll_id in order))


def neighbours(talk: Talk, poll_id: str) -> tuple[str | None, str | None]:
    """The ids of the polls before and after `poll_id` in the talk's order."""
    ids = talk.poll_ids
    if poll_id not in ids:
        return None, None
    at = ids.index(poll_id)
    return (ids[at - 1] if at > 0 else None), (ids[at + 1] if at + 1 < len(ids) else None)


def next_poll(talk: Talk) -> str | None:
    """The poll to open next: the first if none is open, else the one after the open one."""
    if not talk.current:
        return talk.poll_ids[0] if talk.polls else None
    return neighbours(talk, talk.current)[1]


def local_closing_time(value: object, *, zone: ZoneInfo, now: datetime) -> str | None:
    """A closing time picked in the site's zone (`2026-11-25T18:00`) as stored (UTC); None if blank;
    InvalidInput if it is no time or is not ahead of `now`."""
    if value in (None, ""):
        return None
    try:
        moment = datetime.fromisoformat(str(value).strip())
    except ValueError as exc:
        raise InvalidInput(
            "Pick the closing time with the date and time picker, e.g. 2026-11-25 18:00."
        ) from exc
    moment = moment if moment.tzinfo else moment.replace(tzinfo=zone)
    if moment <= now:
        raise InvalidInput("That closing time has passed; pick a time ahead.")
    return closing_time(moment)


def closing_after(minutes: int, *, now: datetime) -> str:
    """The closing time `minutes` after `now`, as stored."""
    return closing_time(now + timedelta(minutes=minutes))
