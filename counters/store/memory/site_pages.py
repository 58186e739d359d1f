"""Pages created at their first view, in process, under the site's cap."""

from __future__ import annotations

from dataclasses import replace

from counters.domain import refusals, values
from counters.domain.page_rules import PageBudget
from counters.exceptions import PageLimitReached
from counters.store.memory.state import MemoryState


class SitePageMethods(MemoryState):
    """The page budget kept in `_pages`."""

    def create_page(self, definition: values.CounterDefinition, *, cap: int) -> bool:
        """Register the page's counter unless it exists, while fewer than `cap` pages were created."""
        with self._lock:
            if definition.name in self._counters:
                return False
            if self._pages.created >= cap:
                self._pages = replace(self._pages, refused=self._pages.refused + 1)
                raise PageLimitReached(refusals.page_cap(cap))
            self._pages = replace(self._pages, created=self._pages.created + 1)
            return self._define(definition)

    def page_budget(self) -> PageBudget:
        """Pages created and refused so far."""
        with self._lock:
            return self._pages
