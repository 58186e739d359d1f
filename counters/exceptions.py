"""The project's own errors; counters/web/http/errors.py maps each to its HTTP answer."""

from __future__ import annotations

from typing import Any


class CounterError(Exception):
    """Base class of every counters error, carrying a sentence a person can read."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class InvalidInput(CounterError):
    """A name, body or parameter that does not fit the contract."""


class UnknownCounter(CounterError):
    """The counter, page or poll is not registered."""


class Conflict(CounterError):
    """A concurrent change won; the caller may look again and retry."""


class VersionConflict(Conflict):
    """A conditional write saw another version than the one expected."""

    def __init__(self, detail: str, *, current: Any = None) -> None:
        # `current` is the counter's CounterState now (typed loosely: this bottom module imports nothing).
        super().__init__(detail)
        self.current = current


class NotAllowed(CounterError):
    """The asker may not do this (a poll for signed-in users, a staff action)."""


class RateLimited(CounterError):
    """Too many requests from one client."""

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class StoreUnavailable(CounterError):
    """DynamoDB is throttling, down or too slow; nothing was acknowledged."""

    def __init__(self, detail: str, *, retry_after: int = 1, refused: bool = False) -> None:
        super().__init__(detail)
        self.retry_after = retry_after
        # The store refused the request outright (throttled): sending it again cannot apply it twice.
        self.refused = refused


class StoreMisconfigured(StoreUnavailable):
    """The store cannot serve until its settings are fixed (credentials, endpoint, region, table).

    A StoreUnavailable, so every page and endpoint still degrades as in an outage; kept apart from one
    by its own code and sentence, which says what is wrong and how to fix it. `where` names the
    endpoint, region and table for the server's log, never for a visitor.
    """

    def __init__(self, detail: str, *, where: str = "") -> None:
        # Refused: nothing went out, so nothing can have been applied.
        super().__init__(detail, retry_after=30, refused=True)
        self.where = where


class PageLimitReached(CounterError):
    """A new page would pass the site's cap on pages created at their first view."""


class PollClosed(Conflict):
    """The poll takes no more votes."""


class IdempotencyKeyReused(Conflict):
    """An Idempotency-Key came back with another request than the one it first carried."""


class IdempotencyKeyInUse(Conflict):
    """An Idempotency-Key came back from another voter than the one it was used by (in the same poll)."""


class TooLarge(InvalidInput):
    """A body or header longer than the contract allows."""


class OutcomeUnknown(StoreUnavailable):
    """A write was sent and its answer lost (connection cut or timed out): it counted once or not at all."""


class IdempotencyRace(Exception):
    """The store found this Idempotency-Key recorded already: answer from its record, change nothing.

    `stored` (a StoredReply) and `poll` (a PollDefinition) are given when the store read them while
    finding out, so the answer needs no second read of them; else the caller reads `stored_reply`.
    """

    def __init__(self, stored: Any = None, poll: Any = None) -> None:
        super().__init__("This Idempotency-Key is recorded already.")
        self.stored = stored
        self.poll = poll
