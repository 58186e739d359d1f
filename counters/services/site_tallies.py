"""A person's view as the whole site sees it: the site's history, and the day's pages and sources.

Batched per process like the history (history_writer.py, tally_writer.py): a few dictionary updates
on the request path, the writes in the background. The dashboard's own loads are no traffic of the
site and are left out (as the overview leaves them out).
"""

from __future__ import annotations

import time

from counters.background import history_writer
from counters.background.tally_writer import tally_writer
from counters.domain.names import DASHBOARD_COUNTER
from counters.domain.page_rules import PAGES_GROUP, SITE, sources_group
from counters.domain.visitors import visit_day
from counters.runtime import runtime


def site_tally(*, name: str, source: str | None, at: float | None = None) -> None:
    """Count a person's view of page `name` (from `source`, if known) in the site's numbers."""
    if name == DASHBOARD_COUNTER:
        return
    history_writer.record(name=SITE, at=at)
    tallies = [(PAGES_GROUP, name)]
    if source is not None:
        tallies += [(sources_group(name), source), (sources_group(SITE), source)]
    tally_writer().record(visit_day(time.time() if at is None else at, runtime().clock.zone), tallies)
