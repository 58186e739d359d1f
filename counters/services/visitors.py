"""Count a page's unique visitors: the day's salt, the visitor's keyed hash, this process's memory.

For each view of a person (bots go to `bot_views` instead, see counters.services.counters), the
visitor's hash is HMAC-SHA256 under the day's salt (counters.domain.visitors). This process remembers
the hashes it has seen lately (an LRU of SEEN_CACHE_SIZE), so a repeat view it has seen costs no
write at all; any other view costs one transaction in the store, which counts the visitor only if
their marker is new (exact however many processes and requests race). The salt is read from the store
once a day per process, and the older days' salts are deleted then.

Counting a visitor never fails the view, which is counted already: if the store cannot take it, the
visitor is left out of the memory and the next view of theirs tries again (the transaction counts
them once whenever it lands). What is logged names the page only.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict

from counters.domain.visitors import Client, VisitDay, new_salt, visit_day, visitor_id
from counters.exceptions import CounterError
from counters.runtime import runtime
from counters.store import CounterStore

logger = logging.getLogger(__name__)

# Visitor hashes one process remembers (about 130 bytes each: ~13 MB when full). A hash is per page and
# per day's salt, so yesterday's simply age out.
SEEN_CACHE_SIZE = 100_000


class SeenCache:
    """The visitor hashes this process saw counted most recently, least recent dropped first."""

    def __init__(self, size: int = SEEN_CACHE_SIZE) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._hashes: OrderedDict[str, None] = OrderedDict()

    def seen(self, visitor: str) -> bool:
        """Whether `visitor` is remembered (and keep it, as just used)."""
        with self._lock:
            if visitor not in self._hashes:
                return False
            self._hashes.move_to_end(visitor)
            return True

    def add(self, visitor: str) -> None:
        """Remember `visitor`, forgetting the least recent hash when full."""
        with self._lock:
            self._hashes[visitor] = None
            self._hashes.move_to_end(visitor)
            if len(self._hashes) > self.size:
                self._hashes.popitem(last=False)


class VisitorBook:
    """This process's side of one store's unique visitors: the day's salt and the hashes seen."""

    def __init__(self, store: CounterStore, *, cache_size: int = SEEN_CACHE_SIZE) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._salt: tuple[str, bytes] | None = None  # the day's key and its salt
        self.seen = SeenCache(cache_size)

    @classmethod
    def for_runtime(cls, process: object) -> VisitorBook:
        """The runtime's book, for its store."""
        return cls(process.part("store"))

    def salt(self, day: VisitDay) -> bytes:
        """The day's salt, from the store on this process's first view of the day (older salts deleted)."""
        store = self._store
        with self._lock:
            known = self._salt
        if known is not None and known[0] == day.key:
            return known[1]
        # Not under the lock: at midnight every waiting view would queue behind one slow call. Views
        # that start the day together all make the same idempotent call and get the same salt.
        salt = store.daily_salt(day, candidate=new_salt())
        dropped = store.drop_salts(before=day)
        if dropped:
            logger.info("Deleted %s daily salt(s) of the days before %s", dropped, day.key)
        with self._lock:
            self._salt = (day.key, salt)
        return salt

    def record(self, *, name: str, client: Client, at: float | None = None) -> bool | None:
        """Count the client as a visitor of page `name` on the day of `at` (default now).

        True for their first view of the page that day, False for a repeat, None if the store
        could not take it (logged; the next view tries again).
        """
        day = visit_day(time.time() if at is None else at)
        try:
            visitor = visitor_id(self.salt(day), client, name)
            if self.seen.seen(visitor):
                return False
            first = self._store.record_visitor(name, visitor, day=day)
        except CounterError as exc:
            logger.warning(
                "A visitor of %s may not be counted yet (their next view tries again): %s", name, exc.detail
            )
            return None
        self.seen.add(visitor)
        return first

    def forget_seen(self) -> None:
        """Forget the visitors this process has seen, as a freshly started worker would know none."""
        self.seen = SeenCache(self.seen.size)


def visitor_book() -> VisitorBook:
    """This process's book of its store's visitors."""
    return runtime().part("visitors")


def visitor_record(*, name: str, client: Client, at: float | None = None) -> bool | None:
    """Count a person's view of page `name` toward its unique visitors of the day (see VisitorBook)."""
    return visitor_book().record(name=name, client=client, at=at)


def visitors_forget() -> None:
    """Forget the visitors this process has seen, as a freshly started worker would know none."""
    visitor_book().forget_seen()
