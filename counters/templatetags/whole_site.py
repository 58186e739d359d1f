"""`{% load whole_site %}{% site_panel %}`: the whole site on a page (docs/whole-site.md)."""

from __future__ import annotations

from django import template

from counters.exceptions import CounterError
from counters.selectors import site

register = template.Library()


@register.inclusion_tag("counters/_site_panel.html", takes_context=True)
def site_panel(context: template.Context) -> dict:
    """Today's visitors of the site, its chart, top pages now and today and top sources, kept live."""
    if context.get("counts_unavailable"):
        # The page's own write already failed: no read, so a hung store costs the page one timeout.
        return {"summary": None, "unavailable": True}
    try:
        return {"summary": site.site_summary(), "unavailable": False}
    except CounterError:
        return {"summary": None, "unavailable": True}
