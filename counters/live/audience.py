"""What an audience socket may receive: the one place that keeps hidden poll totals off them.

A socket is staff's when its user is active staff (the session's user, through the routing's auth
middleware); staff sockets receive every frame. Every other socket is an audience socket: it receives a
poll option's total only while that poll's rule shows totals to someone who has not voted (always; once
closed; once revealed). A poll whose rule is "after the voter voted" shows its totals to its voters in
the vote's answer and the API, never on the shared socket. What is visible is learned from each
snapshot and catalog read; a catalog event (a poll revealed, hidden, closed, reopened, added, reset)
forgets it at once, so until the next read no option total reaches an audience socket, and a read that
began before the event cannot bring the old answer back. Option counters not yet known (a poll created
after the last read) are withheld too: the rule is an allow list.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from datetime import datetime

from counters import selectors
from counters.domain.poll_rules import parse_time
from counters.runtime import runtime


def socket_is_staff(scope: dict) -> bool:
    """Whether the socket's user is active staff (no user in the scope: an audience socket)."""
    user = scope.get("user")
    return bool(user is not None and getattr(user, "is_active", False) and getattr(user, "is_staff", False))


def is_option(name: str) -> bool:
    """Whether a counter name is a poll option's (`<poll>.<option>`)."""
    return "." in name


class AudienceView:
    """Thread-safe: the option counters audience sockets may receive, as last read."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._visible: frozenset[str] = frozenset()
        self._generation = 0
        self._next_close: datetime | None = None

    @classmethod
    def for_runtime(cls, process: object) -> AudienceView:
        """Nothing known yet: no option total reaches an audience socket before the first read."""
        return cls()

    @property
    def generation(self) -> int:
        """Taken before a read: a forget() since makes that read's answer too old to learn."""
        with self._lock:
            return self._generation

    def forget(self) -> None:
        """A poll changed: withhold every option total until the next read."""
        with self._lock:
            self._generation += 1
            self._visible = frozenset()

    def learn(self, polls: list[selectors.PollTotals], generation: int, now: datetime) -> None:
        """Keep which polls' totals the audience may see, read when the generation was `generation`."""
        visible = visible_options(polls, now)
        upcoming = [parse_time(t.poll.closes_at) for t in polls if t.poll.closes_at and not t.closed_at(now)]
        with self._lock:
            if generation == self._generation:
                self._visible = visible
                self._next_close = min(upcoming, default=None)

    @property
    def next_close(self) -> datetime | None:
        """The soonest `closes_at` still ahead, as last read (when open pages need a catalog again)."""
        with self._lock:
            return self._next_close

    def may_see(self, name: str) -> bool:
        """Whether an audience socket may receive counter `name`'s total."""
        return not is_option(name) or name in self._visible

    def counters(self, counters: Iterable[dict]) -> list[dict]:
        """The counters (dicts with a `name`) an audience socket may receive."""
        return [counter for counter in counters if self.may_see(counter["name"])]

    def update_frame(self, text: str, names: Iterable[str]) -> str | None:
        """An update frame's audience text: `text` if every name may go, None if none may, else re-encoded."""
        names = list(names)
        allowed = [name for name in names if self.may_see(name)]
        if len(allowed) == len(names):
            return text
        if not allowed:
            return None
        frame = json.loads(text)
        frame["counters"] = self.counters(frame["counters"])
        return json.dumps(frame, separators=(",", ":"))


def visible_options(polls: list[selectors.PollTotals], now: datetime) -> frozenset[str]:
    """The option counters of the polls whose totals one who has not voted may see at `now`."""
    return frozenset(
        option.counter
        for totals in polls
        if totals.visible_to(staff=False, has_voted=False, now=now)
        for option in totals.options
    )


def catalog_frames(polls: list[selectors.PollTotals], counters: list[dict], now: datetime) -> tuple[str, str]:
    """The catalog's text for staff sockets and for audience sockets (hidden totals left out)."""
    visible = visible_options(polls, now)
    staff = {"type": "catalog", "counters": counters, "polls": [p.as_dict(now=now) for p in polls]}
    audience = {
        "type": "catalog",
        "counters": [c for c in counters if not is_option(c["name"]) or c["name"] in visible],
        "polls": [
            p.as_dict(visible=p.visible_to(staff=False, has_voted=False, now=now), now=now) for p in polls
        ],
    }
    return json.dumps(staff, separators=(",", ":")), json.dumps(audience, separators=(",", ":"))


def audience_view() -> AudienceView:
    """This process's view of what audience sockets may receive."""
    return runtime().audience
