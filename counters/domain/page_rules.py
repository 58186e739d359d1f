"""Which paths of a site count as pages, under which name, and what a page's title is (no I/O).

A page is its path with the query and fragment dropped and one rule for trailing slashes: a path
ending in `/` is the same page without it (`/docs/` and `/docs` are one page; `/` stays `/`). Its
counter's name is a readable slug of the path plus 8 hex digits of SHA-256 of where it lives (the
path, or host and path for a page on another origin), so two paths never share a counter and any
path, however long or unusual, gives a valid name.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass

from counters.domain.names import MAX_TEXT_LENGTH, SITE_VISITORS
from counters.exceptions import InvalidInput

# Characters no path of a real page holds: C0 controls, DEL and C1 controls.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
SLUG_RUN = re.compile(r"[^a-z0-9]+")
# The readable part of a name; with "-" and the 8-digit hash a name stays within 64 characters.
SLUG_CHARS = 48
HASH_CHARS = 8
TITLE = re.compile(rb"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
# A <title> sits in the head: reading this much of a page is plenty.
TITLE_SCAN_BYTES = 64 * 1024
SPACES = re.compile(r"\s+")


def page_path(raw: object, *, max_length: int) -> str:
    """The page a path stands for (query, fragment and a trailing slash dropped); InvalidInput if unusable."""
    if not isinstance(raw, str) or not raw.startswith("/"):
        raise InvalidInput("A page path is a string starting with '/'.")
    path = raw.split("#", 1)[0].split("?", 1)[0]
    if len(path) > max_length:
        raise InvalidInput(f"A page path is at most {max_length} characters.")
    if CONTROL.search(path):
        raise InvalidInput("A page path cannot hold control characters.")
    if len(path) > 1:
        path = path.rstrip("/") or "/"
    return path


def page_name(path: str, *, host: str = "") -> str:
    """The counter name of the page at `path` (on `host`, for a page on another origin)."""
    digest = hashlib.sha256(f"{host}{path}".encode()).hexdigest()[:HASH_CHARS]
    slug = SLUG_RUN.sub("-", path.lower()).strip("-")[:SLUG_CHARS].strip("-") or "home"
    return f"{slug}-{digest}"


def page_title(document: bytes) -> str:
    """The text of a page's <title> (unescaped, spaces collapsed, at most 200 characters), or ''."""
    match = TITLE.search(document[:TITLE_SCAN_BYTES])
    if not match:
        return ""
    text = html.unescape(match.group(1).decode("utf-8", "replace"))
    return clean_title(text)


def clean_title(text: object) -> str:
    """A title as sent or read: control characters and runs of spaces made one space, cut to 200."""
    if not isinstance(text, str):
        return ""
    return SPACES.sub(" ", CONTROL.sub(" ", text)).strip()[:MAX_TEXT_LENGTH]


@dataclass(frozen=True)
class PageRules:
    """Paths that count: any `include` pattern matches (or none is given) and no `exclude` one does."""

    include: tuple[re.Pattern[str], ...] = ()
    exclude: tuple[re.Pattern[str], ...] = ()
    # Prefixes that never count whatever the patterns say (the admin, static files, the API).
    never: tuple[str, ...] = ()

    @classmethod
    def from_patterns(
        cls, *, include: Iterable[str] = (), exclude: Iterable[str] = (), never: Iterable[str] = ()
    ) -> PageRules:
        """Rules from regular expressions (matched with `re.search` at the path's start if anchored)."""
        return cls(
            include=tuple(re.compile(pattern) for pattern in include),
            exclude=tuple(re.compile(pattern) for pattern in exclude),
            never=tuple(prefix for prefix in never if prefix),
        )

    def counts(self, path: str) -> bool:
        """Whether a view of `path` (as `page_path` gives it) counts."""
        if any(path.startswith(prefix) or f"{path}/" == prefix for prefix in self.never):
            return False
        if self.include and not any(pattern.search(path) for pattern in self.include):
            return False
        return not any(pattern.search(path) for pattern in self.exclude)


@dataclass(frozen=True)
class PageBudget:
    """Pages created at their first view so far, and new pages refused because the cap was reached."""

    created: int = 0
    refused: int = 0


# The whole site, as a name in the history and the tallies, beside its unique visitors of each day.
SITE = SITE_VISITORS
# The tally group of each day's views per page (the top pages of a day).
PAGES_GROUP = "pages"


def sources_group(name: str) -> str:
    """The tally group of a page's sources (or the site's, for SITE)."""
    return f"sources:{name}"
