"""Count a view of any page of a site: its counter created at its first view, under the rules and the cap.

Used by SitePagesMiddleware (pages Django serves) and the site beacon (pages elsewhere, site.js). A
view tries the page's counter first (one group-committed write, as every view); only a page not
registered yet costs the transaction that creates it under the cap (counters/store/base.py
`create_page`), then the view's write. A person's view also counts toward the site's history and the
day's tallies of pages and sources (services/site_tallies.py), as every person's view does.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from django.conf import settings
from django.urls import NoReverseMatch, reverse

from counters import conf
from counters.domain.bots import is_bot
from counters.domain.page_rules import PageRules, page_name, page_path
from counters.domain.values import CounterDefinition, CounterState
from counters.domain.visitors import Client
from counters.exceptions import PageLimitReached, UnknownCounter
from counters.live import catalog
from counters.runtime import runtime
from counters.services.counters import view_record, views_counted
from counters.store import CounterStore, get_store

logger = logging.getLogger(__name__)

# A site at its cap may be sent many new paths: one log line per this many seconds says so.
REFUSAL_LOG_SECONDS = 60.0


@dataclass(frozen=True)
class Page:
    """A page as counted: its path, where it lives (empty: this site) and its counter's name."""

    path: str
    host: str
    name: str

    @property
    def address(self) -> str:
        """Where the page lives, as its counter's description says: the path, or host and path."""
        return f"{self.host}{self.path}"


class SitePages:
    """This process's rules for whole-site counting, and the log of pages refused at the cap."""

    def __init__(
        self,
        store: CounterStore,
        *,
        rules: PageRules,
        cap: int,
        max_path: int,
        origins: frozenset[str] = frozenset(),
    ) -> None:
        self._store = store
        self.rules = rules
        self.cap = cap
        self.max_path = max_path
        # Origins whose pages may send the site beacon, as browsers write them (lowercase, no slash).
        self.origins = frozenset(origin.lower().rstrip("/") for origin in origins)
        self._lock = threading.Lock()
        self._refused = 0
        self._logged_at = 0.0

    @classmethod
    def from_settings(cls, store: CounterStore) -> SitePages:
        """Pages of `store` under the settings' rules; the admin, static files and the API never counted."""
        rules = PageRules.from_patterns(
            include=conf.site_include(), exclude=conf.site_exclude(), never=never_prefixes()
        )
        return cls(
            store,
            rules=rules,
            cap=conf.site_max_pages(),
            max_path=conf.site_max_path(),
            origins=frozenset(conf.site_origins()),
        )

    def page_for(self, raw_path: object, *, host: str = "") -> Page | None:
        """The page a path stands for, None if the rules leave it out; InvalidInput for an unusable path."""
        path = page_path(raw_path, max_length=self.max_path)
        if not self.rules.counts(path):
            return None
        return Page(path=path, host=host, name=page_name(path, host=host))

    def create(self, page: Page, *, title: str) -> None:
        """Register the page's counter (if no one did meanwhile); PageLimitReached at the cap, logged."""
        definition = CounterDefinition(
            name=page.name, kind="views", title=title or page.address, description=page.address
        )
        try:
            created = self._store.create_page(definition, cap=self.cap)
        except PageLimitReached:
            self._log_refusal(page)
            raise
        if created:
            logger.info("Counting a new page %s as %s", page.address, page.name)
            catalog.publish_catalog()  # open dashboards add its row

    def _log_refusal(self, page: Page) -> None:
        """Say in the log, at most once a minute, that new pages are refused at the cap."""
        now = time.monotonic()
        with self._lock:
            self._refused += 1
            if now - self._logged_at < REFUSAL_LOG_SECONDS and self._logged_at:
                return
            self._logged_at, refused = now, self._refused
        logger.warning(
            "New page %s not counted: the site's cap of %s pages created at their first view is reached "
            "(%s refused by this process; COUNTERS_SITE_MAX_PAGES raises the cap)",
            page.address[:200],
            self.cap,
            refused,
        )


def never_prefixes() -> tuple[str, ...]:
    """Path prefixes that are never pages: static and media files, the admin, the app's API and views."""
    prefixes = [settings.STATIC_URL, getattr(settings, "MEDIA_URL", ""), route_path("admin:index")]
    # The API's folder: `/api/counters` lives in `/api/`, as every endpoint of the app's API does.
    if api := route_path("counters:api-counters"):
        prefixes.append(api.rsplit("/", 1)[0] + "/")
    # A page's own view reads its numbers: looking at them is no view of the site.
    if own_view := route_path("counters:site-page", "-"):
        prefixes.append(own_view.removesuffix("-/"))
    # An unset MEDIA_URL reads as "/", which would leave no page at all.
    return tuple("/" + prefix.lstrip("/") for prefix in prefixes if prefix.strip("/"))


def route_path(route: str, *args: str) -> str:
    """The path of a named route, '' if the project has no such route."""
    try:
        return reverse(route, args=args)
    except NoReverseMatch:
        return ""


def site_pages() -> SitePages:
    """This process's whole-site rules."""
    return runtime().site_pages


def site_view_record(
    *, page: Page, title: str, source: str | None, client: Client, at: float | None = None
) -> CounterState | None:
    """Count one view of `page` (created at its first view); None for a bot's view of a new page."""
    try:
        return view_record(slug=page.name, client=client, at=at, source=source)
    except UnknownCounter:
        if conf.count_bots_separately() and is_bot(client.user_agent):
            return None  # a crawler never creates a page
    site_pages().create(page, title=title)
    return view_record(slug=page.name, client=client, at=at, source=source)


def page_views_add(name: str, count: int) -> CounterState:
    """Count `count` views of a page created at its first view (its step is 1) in one write; pushed."""
    state = get_store().increment(name, kind="views", by=count)
    views_counted(state, count=count)
    return state
