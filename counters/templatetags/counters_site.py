"""`{% load counters_site %}{% site_panel %}`: the whole site on a page (docs/whole-site.md)."""

from __future__ import annotations

from django import template

from counters.exceptions import CounterError
from counters.selectors import site

register = template.Library()


@register.inclusion_tag("counters/_site_panel.html")
def site_panel() -> dict:
    """Today's visitors of the site, its chart, top pages now and today and top sources, kept live."""
    try:
        return {"summary": site.site_summary(), "unavailable": False}
    except CounterError:
        return {"summary": None, "unavailable": True}
