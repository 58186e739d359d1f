"""Poll administration: create a poll, add an option, close or reopen; each one conditional write."""

from __future__ import annotations

import time

from counters.domain.names import option_counter_name, validate_slug
from counters.domain.poll_rules import RATING_OPTIONS, validate_settings
from counters.domain.polls import validate_option, validate_options, validate_question
from counters.domain.values import PollDefinition
from counters.live import broadcast, catalog
from counters.services.vote_totals import known_totals
from counters.store import get_store


def poll_create(
    *,
    poll_id: str,
    question: str,
    options: list[tuple[str, str]] | None = None,
    closed: bool = False,
    unlisted: bool = False,
    **settings: object,
) -> PollDefinition:
    """Create a poll with its options (id, label) and settings (poll_rules.validate_settings) in one
    conditional write; Conflict if any exists. A rating poll's options are 1 to 5; an `unlisted` one is
    kept off the public dashboard."""
    checked = validate_settings(**settings)
    if checked["kind"] == "rating":
        options = [(value, value) for value in RATING_OPTIONS]
    poll = PollDefinition(
        id=validate_slug(poll_id, what="poll id"),
        question=validate_question(question),
        options=validate_options(options or []),
        closed=closed,
        unlisted=unlisted,
        **checked,
    )
    created = get_store().create_poll(poll)
    broadcast.publish(get_store().get_many(option_counter_name(poll.id, o.id) for o in poll.options))
    catalog.publish_catalog()
    return created


def poll_add_option(*, poll_id: str, option_id: str, label: str) -> PollDefinition:
    """Add an option to a poll, only if its id is new there."""
    option = validate_option(option_id, label)
    poll = get_store().add_poll_option(validate_slug(poll_id, what="poll id"), option)
    broadcast.publish(get_store().get_many([option_counter_name(poll.id, option.id)]))
    catalog.publish_catalog()
    return poll


def poll_set_closed(*, poll_id: str, closed: bool) -> PollDefinition:
    """Close a poll (it stops taking votes) or reopen it; Conflict if it is so already."""
    poll = get_store().set_poll_closed(validate_slug(poll_id, what="poll id"), closed=closed)
    catalog.publish_catalog()
    return poll


def poll_set_unlisted(*, poll_id: str, unlisted: bool) -> PollDefinition:
    """Take a poll off the public dashboard or put it back; Conflict if it is so already."""
    poll = get_store().set_poll_unlisted(validate_slug(poll_id, what="poll id"), unlisted=unlisted)
    catalog.publish_catalog()
    return poll


# The presenter's controls: each one conditional write, pushed to open pages (with the totals it shows).
POLL_ACTIONS = ("reveal", "hide", "close", "reopen")


def poll_control(*, poll_id: str, action: str) -> PollDefinition:
    """Reveal or hide a poll's totals, close or reopen it; Conflict if it is so already."""
    store = get_store()
    if action in ("reveal", "hide"):
        poll = store.set_poll_revealed(poll_id, revealed=action == "reveal")
    else:
        poll = store.set_poll_closed(poll_id, closed=action == "close")
    catalog.publish_catalog()
    return poll


def poll_reset(*, poll_id: str, expected_version: int, actor: str, reason: str) -> PollDefinition:
    """Zero a poll's votes if it is still at the version the staff member saw (VersionConflict if not),
    audited; open pages get the zeroed totals and the poll's new state."""
    store = get_store()
    poll = store.reset_poll(
        validate_slug(poll_id, what="poll id"), expected_version=expected_version, actor=actor, reason=reason
    )
    names = [option_counter_name(poll.id, o.id) for o in poll.options]
    began = time.monotonic()
    states = store.get_many(names)
    # This process's known totals of the poll start again from the zeroed ones.
    known_totals().learn(poll.id, names, states, began=began)
    broadcast.publish(states)
    catalog.publish_catalog()
    return poll


def poll_delete(*, poll_id: str, expected_version: int, actor: str, reason: str) -> None:
    """Remove a poll (its code, its option counters) if still at the version seen, audited."""
    get_store().delete_poll(
        validate_slug(poll_id, what="poll id"), expected_version=expected_version, actor=actor, reason=reason
    )
    catalog.publish_catalog()


def poll_edit(
    *, poll_id: str, expected_version: int, question: str, labels: dict[str, str]
) -> PollDefinition:
    """New question and option labels, until the poll's first vote (Conflict after it) and only at the
    version the staff member saw (VersionConflict)."""
    checked = {
        validate_slug(o, what="option id"): validate_option(o, label).label for o, label in labels.items()
    }
    poll = get_store().edit_poll(
        validate_slug(poll_id, what="poll id"),
        expected_version=expected_version,
        question=validate_question(question),
        labels=checked,
    )
    catalog.publish_catalog()
    return poll
