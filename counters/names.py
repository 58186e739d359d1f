"""Validation of counter, page and poll names: short, lowercase, safe in keys and URLs."""

from __future__ import annotations

import re

from counters.exceptions import InvalidInput
from counters.store.base import PollOption

MAX_NAME_LENGTH = 64
SLUG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
# A counter is a page slug, or `<poll>.<option>` for a poll option.
COUNTER_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}(?:\.[a-z0-9][a-z0-9_-]{0,63})?$")
KINDS = ("views", "votes")
MAX_QUESTION_LENGTH = 200
MAX_LABEL_LENGTH = 100
# A poll is created in one transaction of 1 + 2 items per option; DynamoDB allows 100.
MIN_OPTIONS = 2  # a question with one answer is not a poll
MAX_OPTIONS = 20


def validate_slug(value: object, *, what: str = "slug") -> str:
    """Return a valid slug (page, poll or option id) or raise InvalidInput."""
    if not isinstance(value, str) or not SLUG_PATTERN.fullmatch(value):
        raise InvalidInput(
            f"A {what} is 1 to {MAX_NAME_LENGTH} lowercase letters, digits, '-' or '_', "
            "starting with a letter or digit."
        )
    return value


def validate_counter_name(value: object) -> str:
    """Return a valid counter name or raise InvalidInput."""
    if not isinstance(value, str) or not COUNTER_NAME_PATTERN.fullmatch(value):
        raise InvalidInput(
            "A counter name is a slug (lowercase letters, digits, '-' or '_', at most 64) "
            "or '<poll>.<option>'."
        )
    return value


def validate_kind(value: object) -> str:
    """Return a valid counter kind or raise InvalidInput."""
    if value not in KINDS:
        raise InvalidInput(f"A counter kind is one of {', '.join(KINDS)}.")
    return value  # type: ignore[return-value]


def option_counter_name(poll_id: str, option_id: str) -> str:
    """Name of the vote counter of one poll option."""
    return f"{poll_id}.{option_id}"


MAX_TEXT_LENGTH = 200


def validate_text(value: object, *, what: str = "text", limit: int = MAX_TEXT_LENGTH) -> str:
    """Return stripped, non-empty text of at most `limit` characters or raise InvalidInput."""
    text = value.strip() if isinstance(value, str) else ""
    if not text or len(text) > limit:
        raise InvalidInput(f"A {what} is 1 to {limit} characters.")
    return text


def validate_option(option_id: object, label: object) -> PollOption:
    """Return a valid poll option or raise InvalidInput."""
    return PollOption(
        id=validate_slug(option_id, what="option id"),
        label=validate_text(label, what="option label", limit=MAX_LABEL_LENGTH),
    )


def validate_options(options: list[tuple[str, str]]) -> tuple[PollOption, ...]:
    """Return valid poll options from (id, label) pairs: MIN_OPTIONS to MAX_OPTIONS, ids distinct."""
    if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
        raise InvalidInput(f"A poll has {MIN_OPTIONS} to {MAX_OPTIONS} options.")
    result = tuple(validate_option(option_id, label) for option_id, label in options)
    if len({option.id for option in result}) != len(result):
        raise InvalidInput("Each option of a poll needs its own id.")
    return result
