"""Filters for the counters admin pages."""

from __future__ import annotations

from django import template
from django.utils.dateparse import parse_datetime

register = template.Library()


@register.filter
def when(value: str | None) -> str:
    """An ISO 8601 time from the store as `YYYY-MM-DD HH:MM:SS UTC`; `never` if there is none."""
    moment = parse_datetime(value) if value else None
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment else (value or "never")
