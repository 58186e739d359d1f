"""Armed fault rules and the record of what they did: shared by the in-process faults and the proxy."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

THROTTLED = "ProvisionedThroughputExceededException"


@dataclass
class Rule:
    """What to do with matching requests: `operation` None matches every operation; every string of
    `contains` must occur in the request body (e.g. `counter_key("docs")` for one counter's total)."""

    action: str
    operation: str | None = None
    contains: tuple[str, ...] = ()
    times: int | None = None
    seconds: float = 0.0
    status: int = 400
    error_type: str = THROTTLED
    message: str = "Injected by the test."

    def matches(self, operation: str, body: str) -> bool:
        """Whether this rule applies to this request and has uses left."""
        return (
            (self.times is None or self.times > 0)
            and self.operation in (None, operation)
            and all(part in body for part in self.contains)
        )


@dataclass(frozen=True)
class Seen:
    """One request, and the action taken on it."""

    operation: str
    action: str
    body: str


class Rules:
    """Rules armed by a test, first match wins; every request is recorded in `seen`."""

    actions: frozenset[str] = frozenset()

    def __init__(self) -> None:
        self.seen: list[Seen] = []
        self._rules: list[Rule] = []
        self._lock = threading.Lock()

    def arm(
        self, action: str, *, operation: str | None = None, times: int | None = None, **options: Any
    ) -> Rule:
        """Apply `action` to the next `times` requests of `operation` (None: all, forever)."""
        if action not in self.actions:
            raise ValueError(f"unknown action {action!r}; one of {sorted(self.actions)}")
        rule = Rule(action=action, operation=operation, times=times, **options)
        with self._lock:
            self._rules.append(rule)
        return rule

    def clear(self) -> None:
        """Let everything through again."""
        with self._lock:
            self._rules.clear()

    def take(self, operation: str, body: str) -> Rule | None:
        """The rule for this request (using one of its times), recorded with the action taken."""
        with self._lock:
            rule = next((rule for rule in self._rules if rule.matches(operation, body)), None)
            if rule is not None and rule.times is not None:
                rule.times -= 1
            self.seen.append(Seen(operation, rule.action if rule else "forward", body))
        return rule

    def count(self, operation: str, *, contains: tuple[str, ...] = ()) -> int:
        """How many `operation` requests whose body holds every string of `contains` were seen."""
        with self._lock:
            return sum(
                1 for s in self.seen if s.operation == operation and all(part in s.body for part in contains)
            )


def counter_key(name: str) -> tuple[str, ...]:
    """Strings that only a request on counter `name`'s total item holds (see store/dynamodb/schema.py)."""
    return (f'"C#{name}"', '"TOTAL"')
