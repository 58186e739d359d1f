"""The admin's word on whole-site counting: pages created at their first view, and refused at the cap."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest

from counters import conf
from counters.selectors.site import page_budget


def tell_page_budget(request: HttpRequest) -> None:
    """Say on the counter list how many pages were created at their first view and refused at the cap."""
    budget = page_budget()
    if not budget.created and not budget.refused:
        return
    cap = conf.site_max_pages()
    said = (
        f"Pages created at their first view: {budget.created:,} of at most {cap:,} (COUNTERS_SITE_MAX_PAGES)."
    )
    if budget.refused:
        messages.warning(
            request, f"{said} {budget.refused:,} new pages were refused at the cap and not counted."
        )
    else:
        messages.info(request, said)
