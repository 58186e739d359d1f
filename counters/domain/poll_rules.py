"""The rules of a poll's life: its join code, when it is closed, and who may see its totals."""

from __future__ import annotations

import secrets
from collections.abc import Collection
from datetime import UTC, datetime

from counters.domain.values import PollDefinition, VoteChange, VoterRecord
from counters.exceptions import Conflict, InvalidInput, NotAllowed, PollClosed

# No 0/O, 1/I/L: a code read off a projector and typed on a phone is typed right.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5
KINDS = ("single", "multi", "rating")
RESULTS = ("always", "voted", "closed", "revealed")
AUDIENCES = ("anyone", "users")
RATING_OPTIONS = ("1", "2", "3", "4", "5")
MAX_PICKS = 20


def new_code() -> str:
    """A random join code."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(value: object) -> str:
    """A join code as typed (any case, spaces around) in its stored form; InvalidInput if it is none."""
    code = value.strip().upper() if isinstance(value, str) else ""
    if len(code) != CODE_LENGTH or any(char not in CODE_ALPHABET for char in code):
        raise InvalidInput(f"A join code is {CODE_LENGTH} letters and digits, such as {'K7QXM'!r}.")
    return code


def parse_time(value: str) -> datetime:
    """An ISO-8601 time as an aware UTC datetime (a naive one is taken as UTC)."""
    moment = datetime.fromisoformat(value)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def is_closed(poll: PollDefinition, *, now: datetime, voters: int) -> bool:
    """Whether the poll takes no votes: closed by staff, past `closes_at`, or holding `max_voters` voters."""
    if poll.closed:
        return True
    if poll.closes_at is not None and now >= parse_time(poll.closes_at):
        return True
    return poll.max_voters is not None and voters >= poll.max_voters


def check_may_vote(poll: PollDefinition, *, voter: str, now: datetime) -> None:
    """PollClosed if the poll takes no votes now (by flag or time; max_voters is the store's to hold),
    NotAllowed if only signed-in users (voter ids `user:<pk>`) may vote and this one is not."""
    if is_closed(poll, now=now, voters=0):
        raise PollClosed(f"The poll {poll.id!r} is closed and takes no more votes.")
    if poll.audience == "users" and not voter.startswith("user:"):
        raise NotAllowed("Only signed-in users may vote in this poll; sign in first.")


def check_option(poll_id: str, option: str | None, options: Collection[str]) -> None:
    """InvalidInput unless `option` is one of the poll's option ids (None, a retraction, always is)."""
    if option is not None and option not in options:
        raise InvalidInput(f"The poll {poll_id!r} has no option {option!r}.")


def option_ids(poll: PollDefinition) -> frozenset[str]:
    """The ids of a poll's options."""
    return frozenset(o.id for o in poll.options)


def results_visible(
    poll: PollDefinition, *, staff: bool, has_voted: bool, now: datetime, voters: int
) -> bool:
    """Whether the asker may see the poll's totals: staff always; the audience by the poll's rule."""
    if staff or poll.results == "always":
        return True
    if poll.results == "voted":
        return has_voted or is_closed(poll, now=now, voters=voters)
    if poll.results == "closed":
        return is_closed(poll, now=now, voters=voters)
    return poll.revealed


def hidden_from_everyone(poll: PollDefinition, *, now: datetime, voters: int) -> bool:
    """Whether one who has not voted is refused the totals (what a frame shared by all obeys)."""
    return not results_visible(poll, staff=False, has_voted=False, now=now, voters=voters)


def validate_choice(value: object, allowed: tuple[str, ...], *, what: str) -> str:
    """One of `allowed`, or InvalidInput."""
    if value not in allowed:
        raise InvalidInput(f"A poll's {what} is one of {', '.join(allowed)}.")
    return value


def validate_settings(
    *,
    kind: object = "single",
    max_picks: object = 1,
    results: object = "always",
    closes_at: object = None,
    max_voters: object = None,
    audience: object = "anyone",
) -> dict:
    """A poll's settings, checked; InvalidInput for any that does not fit."""
    kind = validate_choice(kind, KINDS, what="kind")
    picks = validate_count(max_picks, what="max_picks", limit=MAX_PICKS)
    return {
        "kind": kind,
        "max_picks": picks if kind == "multi" else 1,
        "results": validate_choice(results, RESULTS, what="results rule"),
        "closes_at": None if closes_at in (None, "") else closing_time(closes_at),
        "max_voters": None if max_voters in (None, "") else validate_count(max_voters, what="max_voters"),
        "audience": validate_choice(audience, AUDIENCES, what="audience"),
    }


def validate_count(value: object, *, what: str, limit: int = 10**9) -> int:
    """A whole number from 1 to `limit`, or InvalidInput."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidInput(f"A poll's {what} is a whole number from 1 to {limit}.")
    try:
        number = int(value)
    except ValueError as exc:
        raise InvalidInput(f"A poll's {what} is a whole number from 1 to {limit}.") from exc
    if not 1 <= number <= limit:
        raise InvalidInput(f"A poll's {what} is a whole number from 1 to {limit}.")
    return number


def closing_time(value: object) -> str:
    """A closing time as stored: ISO-8601 in UTC to the second, so stored times compare as strings."""
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
    else:
        try:
            moment = parse_time(str(value))
        except ValueError as exc:
            raise InvalidInput("A poll's closes_at is an ISO-8601 time, e.g. 2026-11-25T18:00:00Z.") from exc
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def pick_change(
    poll: PollDefinition, record: VoterRecord, *, voter: str, option: str, picked: bool
) -> VoteChange:
    """What adding (`picked`) or removing one pick of a multiple-choice poll changes; a pick held
    already (or a removal of one not held) changes nothing. Conflict past `max_picks`."""
    picks = record.picks
    if picked and option not in picks and len(picks) >= poll.max_picks:
        raise Conflict(f"A voter holds at most {poll.max_picks} picks in this poll; remove one first.")
    if picked == (option in picks):
        same = option if picked else None
        return VoteChange(poll=poll, voter=voter, choice=same, previous=same, picks=picks)
    after = picks | {option} if picked else picks - {option}
    return VoteChange(
        poll=poll,
        voter=voter,
        choice=option if picked else None,
        previous=None if picked else option,
        picks=frozenset(after),
    )


def keeps_voter_count(poll: PollDefinition) -> bool:
    """Whether the store counts the poll's voters apart (a multiple-choice poll, or one closing at N)."""
    return poll.kind == "multi" or poll.max_voters is not None
