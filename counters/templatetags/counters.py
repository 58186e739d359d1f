"""Template tags: `{% counter_value "name" %}`, `{% live_counter state %}`, `{% poll "id" %}`."""

from __future__ import annotations

from django import template
from django.middleware.csrf import get_token
from django.templatetags.static import static
from django.utils.html import format_html

from counters import selectors
from counters.domain.values import CounterState
from counters.exceptions import CounterError
from counters.web.voters import voter_for

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


@register.inclusion_tag("counters/_poll.html", takes_context=True)
def poll(context, poll: selectors.PollTotals | str, choices: dict[str, str] | None = None) -> dict:
    """A poll with vote buttons and live totals, the visitor's choice marked: `{% poll "language" %}`."""
    request = context["request"]
    if isinstance(poll, str):
        poll = selectors.poll_totals(poll_id=poll)
    if choices is None:
        choices = selectors.voter_choices(voter=voter_for(request), poll_ids=[poll.id])
    # get_token also makes sure the CSRF cookie is set on this page's response.
    return {"poll": poll, "choice": choices.get(poll.id), "csrf_token": get_token(request)}


@register.simple_tag
def poll_script() -> str:
    """The scripts of the vote buttons: live.js (totals, versions) then votes.js; deferred, no inline code."""
    # live.js ignores a second load, so a page that extends counters/base.html may use this too.
    return format_html(
        '<script src="{}" defer></script><script src="{}" defer></script>',
        static("counters/live.js"),
        static("counters/votes.js"),
    )
