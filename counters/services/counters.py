"""Writes to counters: a counted view, making a counter hot, a conditional reset; each then pushed live."""

from __future__ import annotations

from counters import conf
from counters.background import history_writer, hot_settler
from counters.domain.bots import is_bot
from counters.domain.names import validate_counter_name, validate_slug
from counters.domain.values import CounterState
from counters.domain.visitors import Client
from counters.live import broadcast
from counters.live.tallies import publish_bot_views
from counters.metrics import metrics
from counters.services.site_tallies import site_tally
from counters.services.visitors import visitor_record
from counters.store import get_store


def view_record(
    *, slug: str, client: Client | None = None, at: float | None = None, source: str | None = None
) -> CounterState:
    """Count one view of a registered page and push its new total.

    With the `client` (address and user agent), a bot's view goes to `bot_views` instead (unless
    COUNTERS_COUNT_BOTS_APART is off), and a person's also counts toward the day's unique visitors.
    `at` (default now) says on which day. Every person's view also counts in the site's history and
    the day's tallies of pages and of `source` (a referrer's domain or `utm:<label>`; site_tallies.py).
    """
    validate_slug(slug, what="page slug")
    if client is not None and conf.count_bots_separately() and is_bot(client.user_agent):
        # Value and version stay: no history, no push of the total; only the bot tally moves.
        state = get_store().add_bot_view(slug)
        metrics().bot_views_counted.inc()
        publish_bot_views(slug, state.bot_views)
        return state
    state = get_store().increment(slug, kind="views")
    views_counted(state, count=1, at=at)
    site_tally(name=slug, source=source, at=at)
    if client is not None:
        # After the view is counted: a page that is not registered gets no visitor marker.
        visitor_record(name=slug, client=client, at=at)
    return state


def views_counted(state: CounterState, *, count: int, at: float | None = None) -> None:
    """After the write that counted `count` views of a page: metrics, history, hot settling, the live push."""
    metrics().views_counted.inc(count)
    history_writer.record(name=state.name, count=count, at=at)
    hot_settler.written(name=state.name)
    broadcast.publish([state])


def counter_make_hot(*, name: str, shards: int) -> CounterState:
    """Spread a counter's writes over `shards` shards, keeping its count, and push its total."""
    state = get_store().make_hot(validate_counter_name(name), shards=shards)
    broadcast.publish([state])
    return state


def counter_reset(*, name: str, expected_version: int, actor: str, reason: str) -> CounterState:
    """Reset a counter to 0 if it is still at the version the caller saw, and push the new total."""
    state = get_store().reset(
        validate_counter_name(name), expected_version=expected_version, actor=actor, reason=reason
    )
    broadcast.publish([state])
    return state
