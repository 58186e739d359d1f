"""Template tags that show counters: `{% counter_value "name" %}` and `{% live_counter state %}`."""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from counters import selectors
from counters.exceptions import CounterError
from counters.store import CounterState

register = template.Library()


@register.simple_tag
def counter_value(name: str, default: str = "–") -> str:
    """The current total of a counter, or `default` if it is unknown or unreadable."""
    try:
        return str(selectors.counter_get(name=name).value)
    except CounterError:
        return default


@register.simple_tag
def live_counter(state: CounterState | str) -> str:
    """A number that the live dashboard script keeps up to date."""
    if isinstance(state, str):
        try:
            state = selectors.counter_get(name=state)
        except CounterError:
            return format_html('<span class="count" data-counter="{}" data-version="-1">–</span>', state)
    return format_html(
        '<span class="count" data-counter="{}" data-version="{}">{}</span>',
        state.name,
        state.version,
        state.value,
    )
