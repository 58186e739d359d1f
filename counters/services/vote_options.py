"""The options of the polls this process knows, so a vote for an option its poll lacks is refused before
it spends any rate-limit allowance, and a vote for a known option costs no read to find out.

A known option is taken as it is (options are only ever added; a poll deleted since is refused by the
vote's own transaction). An option not known is looked up in a read of the poll that began at most
REFUSE_SECONDS ago, else in a new one (one GetItem): so an option added elsewhere is found within that
time, and votes for unknown options cost at most one read per poll per REFUSE_SECONDS in a process. A
vote for an unknown poll reads it each time, as a GET of that poll's vote does.
"""

from __future__ import annotations

import threading
import time

from counters.domain.poll_rules import check_option, option_ids
from counters.runtime import runtime
from counters.store import get_store

REFUSE_SECONDS = 1.0


class KnownOptions:
    """Thread-safe: the option ids of each poll this process read, with when that read began."""

    def __init__(self, *, seconds: float = REFUSE_SECONDS) -> None:
        self._lock = threading.Lock()
        self._polls: dict[str, tuple[float, frozenset[str]]] = {}
        self._seconds = seconds

    @classmethod
    def for_runtime(cls, process: object) -> KnownOptions:
        """Nothing known yet (a runtime's part, kept per store)."""
        return cls()

    def check(self, poll_id: str, option: str) -> None:
        """Return if the poll has `option`; InvalidInput if not, UnknownCounter if there is no such poll."""
        with self._lock:
            kept = self._polls.get(poll_id)
        if kept is not None and (option in kept[1] or time.monotonic() - kept[0] <= self._seconds):
            check_option(poll_id, option, kept[1])
            return
        began = time.monotonic()
        options = option_ids(get_store().get_poll(poll_id))
        with self._lock:
            self._polls[poll_id] = (began, options)
        check_option(poll_id, option, options)


def vote_option_check(*, poll_id: str, option: str) -> None:
    """Refuse a vote for an option the poll lacks (InvalidInput) or for an unknown poll (UnknownCounter)."""
    runtime().known_options.check(poll_id, option)
