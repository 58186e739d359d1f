"""The sentences a store's refusals say to a user, written once for every backend."""

from __future__ import annotations

ONE_PICK = 'In this poll, add or remove one pick: {"option": "<id>", "picked": true}.'
EDIT_LOCKED = "The poll has taken votes: its question and options are locked."
# How a poll's flag reads when off and when on, in poll_already.
CLOSED_WORDS = ("open", "closed")
REVEALED_WORDS = ("hidden", "revealed")
UNLISTED_WORDS = ("on the dashboard", "off the dashboard")


def no_counter(name: str, kind: str | None = None) -> str:
    """No registered counter of that name (and kind, if given)."""
    return f"There is no {kind + ' ' if kind else ''}counter named {name!r}."


def no_poll(poll_id: str) -> str:
    """No poll of that id."""
    return f"There is no poll named {poll_id!r}."


def no_code(code: str) -> str:
    """No poll opens with that join code."""
    return f"There is no poll with the code {code!r}."


def poll_exists(poll_id: str) -> str:
    """A new poll's id is taken."""
    return f"A poll named {poll_id!r} exists already."


def option_exists(poll_id: str, option: str) -> str:
    """A new option's id is taken in its poll."""
    return f"Poll {poll_id!r} already has an option {option!r}."


def option_counter_taken(name: str, *, several: bool) -> str:
    """An option's counter name is taken by another counter."""
    pick = "other option ids" if several else "another option id"
    return f"A counter named {name!r} exists already; pick {pick}."


def code_taken(code: str) -> str:
    """A chosen join code is taken."""
    return f"The join code {code} is taken by another poll."


def poll_already(poll_id: str, words: tuple[str, str], on: bool) -> str:
    """A poll's flag is already the way asked (`words`: how it reads off and on)."""
    return f"Poll {poll_id!r} is already {words[on]}."


def poll_version_changed(poll_id: str, version: int) -> str:
    """A poll moved past the version staff confirmed."""
    return f"Poll {poll_id} changed: it is at version {version} now. Look again and confirm."


def counter_version_changed(name: str, value: int, version: int) -> str:
    """A counter moved past the version staff confirmed for its reset."""
    return f"{name} changed: it is now {value} at version {version}. Look again and confirm the reset."


def poll_full(poll_id: str) -> str:
    """A poll holds `max_voters` voters."""
    return f"The poll {poll_id!r} has all the voters it takes."


def shards_only_grow(name: str, shards: int) -> str:
    """A hot counter's shard count may not shrink."""
    return f"A hot counter's shards can only grow; {name!r} has {shards}."


def page_cap(cap: int) -> str:
    """The site created its cap of pages at their first view."""
    return f"This site counts at most {cap} pages created at their first view."


def no_talk(talk_id: str) -> str:
    """No talk has this id."""
    return f"There is no talk named {talk_id!r}."


def talk_exists(talk_id: str) -> str:
    """A talk of this id exists already."""
    return f"A talk named {talk_id!r} exists already."


def talk_version_changed(talk_id: str) -> str:
    """The talk changed since the page was read."""
    return f"The talk {talk_id!r} changed meanwhile; look again and retry."
