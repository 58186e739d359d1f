"""Template tags: `{% counter_value "name" %}`, `{% live_counter state %}`, `{% poll "id" %}`."""

from __future__ import annotations

from django import template
from django.middleware.csrf import get_token
from django.templatetags.static import static
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from counters import selectors
from counters.domain.values import CounterState
from counters.exceptions import CounterError
from counters.web.http.voters import is_staff, voter_for

register = template.Library()


def hidden_option(name: str) -> bool:
    """Whether `name` is a poll option whose totals its poll's rule hides from one who has not voted."""
    if "." not in name:
        return False
    totals = selectors.poll_totals(poll_id=name.split(".", 1)[0])
    return not totals.visible_to(staff=False, has_voted=False, now=selectors.now_utc())


@register.simple_tag
def counter_value(name: str, default: str = "–") -> str:
    """The current total of a counter, or `default` if it is unknown, unreadable or hidden by its poll."""
    try:
        return default if hidden_option(name) else str(selectors.counter_get(name=name).value)
    except CounterError:
        return default


@register.filter
def number(value: int) -> str:
    """An integer with thousands separators, as live.js writes it (Intl.NumberFormat, English)."""
    return f"{int(value):,}"


@register.filter
def count_of(value: int, nouns: str) -> str:
    """`{{ 2|count_of:"view,views" }}` -> "2 views": the number and its noun, singular for exactly 1."""
    one, _, other = nouns.partition(",")
    return f"{number(value)} {one if int(value) == 1 else other}"


@register.filter
def address_parts(address: str) -> SafeString:
    """A join address that may wrap only after its host: the host and the path (with the code) stay whole."""
    host, slash, path = address.partition("/")
    parts = [host + slash, path] if path else [host]
    return format_html_join(mark_safe("<wbr>"), '<span class="join-part">{}</span>', ((p,) for p in parts))


@register.simple_tag
def share(part: int, whole: int) -> str:
    """`part` as a whole percentage of `whole` ("0%" when there is nothing yet)."""
    return f"{round(100 * part / whole) if whole else 0}%"


@register.simple_tag
def share_width(part: int, whole: int) -> str:
    """The width of a result bar: `part` of `whole` in percent, for an SVG attribute (CSP allows it)."""
    return f"{100 * part / whole if whole else 0:.2f}%"


@register.simple_tag
def live_counter(state: CounterState | str) -> str:
    """A number that the live dashboard script keeps up to date (a dash for a poll option it hides)."""
    if isinstance(state, str):
        try:
            if hidden_option(state):
                raise CounterError("hidden by its poll")
            state = selectors.counter_get(name=state)
        except CounterError:
            return format_html('<span class="count" data-counter="{}" data-version="-1">–</span>', state)
    return format_html(
        '<span class="count" data-value="{}" data-counter="{}" data-version="{}">{}</span>',
        state.value,
        state.name,
        state.version,
        number(state.value),
    )


@register.inclusion_tag("counters/_poll.html", takes_context=True)
def poll(context, poll: selectors.PollTotals | str, choices: dict[str, str] | None = None) -> dict:
    """A poll with vote buttons and live totals, the visitor's choice marked: `{% poll "language" %}`."""
    request = context["request"]
    if isinstance(poll, str):
        poll = selectors.poll_totals(poll_id=poll)
    if choices is None:
        choices = selectors.voter_choices(voter=voter_for(request), poll_ids=[poll.id])
    choice = choices.get(poll.id)
    chosen = {choice} if choice else set()
    if choice and poll.poll.kind == "multi":
        chosen = selectors.voter_picks(voter=voter_for(request), poll_id=poll.id)
    # Hidden totals never reach the page: the card shows no count, bar or share (nor their versions).
    visible = poll.visible_to(staff=is_staff(request), has_voted=choice is not None, now=selectors.now_utc())
    # get_token also makes sure the CSRF cookie is set on this page's response.
    token = get_token(request)
    context = {"poll": poll, "choice": choice, "chosen": chosen, "csrf_token": token, "visible": visible}
    # Staff see the poll's join code and its room pages on the card.
    return context | {"staff": is_staff(request)}


@register.simple_tag
def poll_script() -> str:
    """The scripts of the vote buttons: live.js (totals, versions) then votes.js; deferred, no inline code."""
    # live.js ignores a second load, so a page that extends counters/base.html may use this too.
    return format_html(
        '<script src="{}" defer></script><script src="{}" defer></script>',
        static("counters/live.js"),
        static("counters/votes.js"),
    )
