"""Talk authoring: create a talk and its polls (ordinary polls), reorder, duplicate, open the next poll."""

from __future__ import annotations

from dataclasses import dataclass, replace

from counters import selectors
from counters.domain import talks as rules
from counters.domain.poll_rules import validate_settings
from counters.domain.polls import validate_options, validate_question
from counters.domain.values import PollDefinition, Talk, TalkPoll
from counters.exceptions import InvalidInput, VersionConflict
from counters.runtime import runtime
from counters.services.polls import poll_create
from counters.store import get_store


@dataclass(frozen=True)
class PollDraft:
    """A poll as the authoring form gives it: text typed by the presenter, not yet checked."""

    question: str
    options: str = ""  # one per line
    kind: str = "single"
    results: str = "always"
    minutes: str = ""  # closes this many minutes after it opens
    closes_at: str = ""  # or at this time in the site's zone


def talk_create(*, title: str) -> Talk:
    """A new, empty talk with an id derived from its title and a join code of its own."""
    title = rules.validate_title(title)
    taken = {talk.id for talk in get_store().list_talks()}
    return get_store().create_talk(Talk(id=rules.unique_id(title, taken=taken, fallback="talk"), title=title))


def talk_add_poll(*, talk_id: str, expected_version: int, draft: PollDraft) -> Talk:
    """Create an ordinary poll from a draft (id derived from its question) at the end of the talk.

    Everything is checked before anything is written, so bad input changes nothing."""
    talk = talk_at(talk_id, expected_version)
    question = validate_question(draft.question)
    minutes = rules.validate_minutes(draft.minutes)
    closes_at = rules.local_closing_time(draft.closes_at, zone=runtime().clock.zone, now=selectors.now_utc())
    if minutes is not None and closes_at is not None:
        raise InvalidInput("Close it N minutes after it opens, or at a time: choose one.")
    settings = validate_settings(kind=draft.kind, results=draft.results, closes_at=closes_at)
    options = [] if settings["kind"] == "rating" else rules.options_from_lines(draft.options)
    if settings["kind"] != "rating":
        validate_options(options)
    if settings["kind"] == "multi":
        settings["max_picks"] = len(options)
    # A talk's polls are for the room: off the public dashboard until the presenter shows one there.
    poll = poll_create(
        poll_id=new_poll_id(question), question=question, options=options, unlisted=True, **settings
    )
    return save(rules.with_poll(talk, TalkPoll(poll.id, minutes)), expected_version)


def talk_move(*, talk_id: str, expected_version: int, poll_id: str, direction: str) -> Talk:
    """Move one poll of the talk a place up or down."""
    talk = talk_at(talk_id, expected_version)
    return save(rules.moved(talk, poll_id, direction), expected_version)


def talk_reorder(*, talk_id: str, expected_version: int, order: list[str]) -> Talk:
    """Put the talk's polls in a new order (each named once)."""
    talk = talk_at(talk_id, expected_version)
    return save(rules.reordered(talk, order), expected_version)


def talk_duplicate_poll(*, talk_id: str, expected_version: int, poll_id: str) -> Talk:
    """A copy of one of the talk's polls (no votes, its own id and code), just after it."""
    talk = talk_at(talk_id, expected_version)
    entry = next((entry for entry in talk.polls if entry.poll == poll_id), None)
    if entry is None:
        raise InvalidInput("Duplicate a poll of this talk.")
    copy = copy_poll(get_store().get_poll(poll_id))
    return save(rules.with_poll(talk, replace(entry, poll=copy.id), after=poll_id), expected_version)


def talk_duplicate(*, talk_id: str) -> Talk:
    """A new talk with a copy of each poll (no votes, none open), titled as a copy."""
    talk = get_store().get_talk(talk_id)
    copy = talk_create(title=f"{talk.title} (copy)"[: rules.MAX_TITLE_LENGTH])
    entries = tuple(
        replace(entry, poll=copy_poll(get_store().get_poll(entry.poll)).id) for entry in talk.polls
    )
    return save(replace(copy, polls=entries), copy.version)


def talk_open(*, talk_id: str, poll_id: str) -> Talk:
    """Make `poll_id` the poll phones on the talk's code see; start its timer if it has one."""
    store = get_store()
    talk = store.get_talk(talk_id)
    entry = next((entry for entry in talk.polls if entry.poll == poll_id), None)
    if entry is None:
        raise InvalidInput("Open a poll of this talk.")
    if entry.minutes is not None and store.get_poll(poll_id).closes_at is None:
        store.set_poll_closes_at(
            poll_id, closes_at=rules.closing_after(entry.minutes, now=selectors.now_utc())
        )
    if talk.current == poll_id:
        return talk
    try:
        return store.save_talk(replace(talk, current=poll_id), expected_version=talk.version)
    except VersionConflict as exc:  # reordered meanwhile: open it in the talk as it is now
        return store.save_talk(replace(exc.current, current=poll_id), expected_version=exc.current.version)


def talk_open_next(*, talk_id: str) -> tuple[Talk, str | None]:
    """Open the poll after the open one (the first if none is); the talk, and the poll opened (None at
    the end)."""
    talk = get_store().get_talk(talk_id)
    following = rules.next_poll(talk)
    if following is None:
        return talk, None
    return talk_open(talk_id=talk_id, poll_id=following), following


def copy_poll(poll: PollDefinition) -> PollDefinition:
    """A new poll with the question, options and settings of `poll`, and none of its votes or state."""
    return poll_create(
        poll_id=new_poll_id(poll.question),
        question=poll.question,
        options=[(option.id, option.label) for option in poll.options],
        kind=poll.kind,
        max_picks=poll.max_picks,
        results=poll.results,
        closes_at=None,
        max_voters=poll.max_voters,
        audience=poll.audience,
        unlisted=poll.unlisted,
    )


def new_poll_id(question: str) -> str:
    """An id for a new poll, derived from its question, that no poll has."""
    taken = {poll.id for poll in get_store().list_polls()}
    return rules.unique_id(question, taken=taken, fallback="poll")


def talk_at(talk_id: str, expected_version: int) -> Talk:
    """The talk, if still at the version the page showed; VersionConflict (nothing written) if not."""
    talk = get_store().get_talk(talk_id)
    if talk.version != expected_version:
        raise VersionConflict(
            f"The talk {talk.title!r} changed meanwhile; look again and retry.", current=talk
        )
    return talk


def save(talk: Talk, expected_version: int) -> Talk:
    """Write the talk at the version read."""
    return get_store().save_talk(talk, expected_version=expected_version)
