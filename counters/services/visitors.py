"""Count a page's unique visitors: the day's salt, the visitor's keyed hash, this process's memory.

For each view of a person (bots go to `bot_views` instead, see counters.services.counters), the
visitor's hash is HMAC-SHA256 under the day's salt (counters.domain.visitors). This process remembers
the hashes it has seen lately (an LRU of SEEN_CACHE_SIZE), so a repeat view it has seen costs no
write at all; any other view costs one transaction in the store, which counts the visitor only if
their marker is new (exact however many processes and requests race). The salt is read from the store
once a day per process, and the older days' salts are deleted then. Days are the site's (TIME_ZONE).

Counting a visitor never fails the view, which is counted already: if the store cannot take it, the
visitor is left out of the memory and the next view of theirs tries again (the transaction counts
them once whenever it lands). What is logged names the page only.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from zoneinfo import ZoneInfo

from counters.domain.names import DASHBOARD_COUNTER, SITE_VISITORS
from counters.domain.visitors import Client, VisitDay, new_salt, site_visitor_id, visit_day, visitor_id
from counters.exceptions import CounterError
from counters.live.tallies import publish_visitors
from counters.runtime import runtime
from counters.store import CounterStore

logger = logging.getLogger(__name__)

# Visitor hashes one process remembers (about 130 bytes each: ~13 MB when full). A hash is per page and
# per day's salt, so yesterday's simply age out.
SEEN_CACHE_SIZE = 100_000


def not_yet(name: str, exc: CounterError) -> None:
    """Say (naming the page only) that a visitor was not counted; their next view tries again."""
    logger.warning(
        "A visitor of %s may not be counted yet (their next view tries again): %s", name, exc.detail
    )


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

    def __init__(
        self, store: CounterStore, *, cache_size: int = SEEN_CACHE_SIZE, zone: ZoneInfo | None = None
    ) -> None:
        self._store = store
        self.zone = zone  # whose days these are: the site's time zone (None: UTC)
        self._lock = threading.Lock()
        self._salt: tuple[str, bytes] | None = None  # the day's key and its salt
        self.seen = SeenCache(cache_size)

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
        """Count the client as a visitor of page `name`, and of the site, on the day of `at` (default now).

        True for their first view of the page that day, False for a repeat, None if the store
        could not take it (logged; the next view tries again). The site's count is kept the same way
        under SITE_VISITORS, with a hash that names no page, on their first view of each page (a site
        count the store could not take is tried again with their next page); the counts that rose are pushed.
        """
        day = visit_day(time.time() if at is None else at, self.zone)
        try:
            salt = self.salt(day)
        except CounterError as exc:
            return not_yet(name, exc)
        first = self._count(name, visitor_id(salt, client, name), day)
        # A repeat of the page is no first visit of the site either: that was tried with the page's first.
        # Loads of the dashboard are not traffic of the site: its visitors are not the site's.
        site = False
        if first is not False and name != DASHBOARD_COUNTER:
            site = self._count(SITE_VISITORS, site_visitor_id(salt, client), day)
        risen = [counted for counted, new in ((name, first), (SITE_VISITORS, site)) if new]
        if risen:
            publish_visitors(risen)
        return first

    def known(self, *, name: str, client: Client, at: float | None = None) -> bool:
        """Whether this process counted the client today as a visitor of `name` and of the site (no I/O)."""
        day = visit_day(time.time() if at is None else at, self.zone)
        with self._lock:
            salt = self._salt
        if salt is None or salt[0] != day.key:
            return False
        page, site = visitor_id(salt[1], client, name), site_visitor_id(salt[1], client)
        return self.seen.seen(page) and self.seen.seen(site)

    def _count(self, name: str, visitor: str, day: VisitDay) -> bool | None:
        """Count one keyed hash once on `day` under `name`: True if new, False if seen, None if not taken."""
        if self.seen.seen(visitor):
            return False
        try:
            first = self._store.record_visitor(name, visitor, day=day)
        except CounterError as exc:
            return not_yet(name, exc)
        self.seen.add(visitor)
        return first

    def forget_seen(self) -> None:
        """Forget the visitors this process has seen, as a freshly started worker would know none."""
        self.seen = SeenCache(self.seen.size)


def visitor_book() -> VisitorBook:
    """This process's book of its store's visitors."""
    return runtime().visitors


def visitor_record(*, name: str, client: Client, at: float | None = None) -> bool | None:
    """Count a person's view of page `name` toward its unique visitors of the day (see VisitorBook)."""
    return visitor_book().record(name=name, client=client, at=at)


def visitors_forget() -> None:
    """Forget the visitors this process has seen, as a freshly started worker would know none."""
    visitor_book().forget_seen()
