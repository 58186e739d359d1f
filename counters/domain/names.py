"""Validation of counter, page and poll names: short, lowercase, safe in keys and URLs."""

from __future__ import annotations

import re

from counters.exceptions import InvalidInput

MAX_NAME_LENGTH = 64
SLUG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
# A counter is a page slug, or `<poll>.<option>` for a poll option.
COUNTER_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}(?:\.[a-z0-9][a-z0-9_-]{0,63})?$")
KINDS = ("views", "votes")
MAX_TEXT_LENGTH = 200
# The dashboard counts its own views under this name; it has no demo page of its own.
DASHBOARD_COUNTER = "dashboard"
# The site's unique visitors of a day (a person counted once however many pages they view) are a day
# bucket of this name beside the pages' own. It can never be a page: a slug starts with a letter or digit.
SITE_VISITORS = "_site"


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


def option_counter_name(poll_id: str, option_id: str) -> str:
    """Name of the vote counter of one poll option."""
    return f"{poll_id}.{option_id}"


def validate_text(value: object, *, what: str = "text", limit: int = MAX_TEXT_LENGTH) -> str:
    """Return stripped, non-empty text of at most `limit` characters or raise InvalidInput."""
    text = value.strip() if isinstance(value, str) else ""
    if not text or len(text) > limit:
        raise InvalidInput(f"A {what} is 1 to {limit} characters.")
    return text
