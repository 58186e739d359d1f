"""Unique visitors: who a visitor is (a keyed hash, never the address or user agent) and on which day.

Days are the site's (its TIME_ZONE, see counters.domain.clock). A visitor of a page on a day is
HMAC-SHA256(the day's salt, address + user agent + page), and a visitor of the site that day
HMAC-SHA256(the day's salt, address + user agent), with no page. The salt is random, one per day for
every process (it lives in the store), and is deleted when the day is over: from then on nobody, the
site included, can tell whose hash a marker holds, and the same person is a new visitor the next day.
Nothing here keeps or logs the address or the user agent.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from counters.domain.buckets import VISITOR_DAYS
from counters.domain.clock import Day, day_of

SALT_BYTES = 32
# Markers and the salt outlive their day by this much (TTL), so a worker whose clock is a little behind
# still finds them; the salt is deleted before that, when the next day's is first used.
DAY_GRACE_SECONDS = 3600


@dataclass(frozen=True)
class Client:
    """What a request tells of its sender; left out of repr so it never reaches a log or a traceback."""

    address: str = field(repr=False)
    user_agent: str = field(repr=False)


@dataclass(frozen=True)
class VisitDay:
    """One day of unique visitors in the site's calendar: its bucket key (`D#<yyyy-mm-dd>`) and TTLs."""

    day: Day

    @property
    def start(self) -> int:
        """The epoch second the day starts (local midnight)."""
        return self.day.start

    @property
    def key(self) -> str:
        """The day's key: the sort key of its count, its salt and part of each marker's key."""
        return VISITOR_DAYS.key(self.day)

    @property
    def marker_expires_at(self) -> int:
        """TTL of the day's salt and seen-markers: the day's end and a little grace."""
        return self.day.end + DAY_GRACE_SECONDS

    @property
    def count_expires_at(self) -> int:
        """TTL of the day's unique-visitor count: kept as long as the hourly history (90 days)."""
        return VISITOR_DAYS.expires_at(self.day)


def visit_day(at: float, zone: ZoneInfo | None = None) -> VisitDay:
    """The day of `zone` (default UTC) holding the epoch second `at`."""
    return VisitDay(day_of(at, zone or ZoneInfo("UTC")))


def new_salt() -> bytes:
    """A fresh random salt for a day that has none yet."""
    return secrets.token_bytes(SALT_BYTES)


def visitor_id(salt: bytes, client: Client, page: str) -> str:
    """The visitor's keyed hash for one page under one day's salt (hex)."""
    # JSON keeps the three parts apart: no address/agent pair can be made to read as another.
    message = json.dumps([client.address, client.user_agent, page]).encode()
    return hmac.new(salt, message, hashlib.sha256).hexdigest()


def site_visitor_id(salt: bytes, client: Client) -> str:
    """The visitor's keyed hash for the whole site under one day's salt (hex): no page in it."""
    # Two parts, where a page's hash has three: no page's hash can equal a site hash.
    message = json.dumps([client.address, client.user_agent]).encode()
    return hmac.new(salt, message, hashlib.sha256).hexdigest()
