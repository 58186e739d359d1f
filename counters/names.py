"""Validation of counter, page and poll names: short, lowercase, safe in keys and URLs."""

from __future__ import annotations

import re

from counters.exceptions import InvalidInput

MAX_NAME_LENGTH = 64
SLUG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
# A counter is a page slug, or `<poll>.<option>` for a poll option.
COUNTER_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}(?:\.[a-z0-9][a-z0-9_-]{0,63})?$")
KINDS = ("views", "votes")


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
