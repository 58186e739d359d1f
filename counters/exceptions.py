"""The project's own errors, raised by the store and mapped to HTTP statuses by the views."""

from __future__ import annotations

from typing import Any


class CounterError(Exception):
    """Base class of every counters error; `code` and `status` shape the JSON answer."""

    code = "error"
    status = 400

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class InvalidInput(CounterError):
    """A name, body or parameter that does not fit the contract."""

    code = "invalid"
    status = 400


class UnknownCounter(CounterError):
    """The counter, page or poll is not registered."""

    code = "not_found"
    status = 404


class Conflict(CounterError):
    """A concurrent change won; the caller may look again and retry."""

    code = "conflict"
    status = 409


class VersionConflict(Conflict):
    """A conditional write saw another version than the one expected."""

    code = "version_conflict"

    def __init__(self, detail: str, *, current: Any = None) -> None:
        # `current` is the counter's CounterState now (typed loosely: values import this module).
        super().__init__(detail)
        self.current = current


class RateLimited(CounterError):
    """Too many requests from one client."""

    code = "rate_limited"
    status = 429

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class StoreUnavailable(CounterError):
    """DynamoDB is throttling, down or too slow; nothing was acknowledged."""

    code = "store_unavailable"
    status = 503

    def __init__(self, detail: str, *, retry_after: int = 1) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class PollClosed(Conflict):
    """The poll takes no more votes."""

    code = "poll_closed"


class IdempotencyKeyReused(Conflict):
    """An Idempotency-Key came back with another request than the one it first carried."""

    code = "idempotency_key_reused"


class TooLarge(InvalidInput):
    """A body or header longer than the contract allows."""

    code = "too_large"
    status = 413


class OutcomeUnknown(StoreUnavailable):
    """A write was sent and its answer lost (connection cut or timed out): it counted once or not at all."""

    code = "outcome_unknown"


class IdempotencyRace(Exception):
    """The store found this Idempotency-Key recorded already: answer from its record, change nothing."""
