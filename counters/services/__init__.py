"""Writes (HackSoft style): every state change goes through one of these, then to the live push."""

from counters.services.badges import badge_counting_set, badge_fetch
from counters.services.counters import counter_make_hot, counter_reset, view_record
from counters.services.polls import (
    POLL_ACTIONS,
    poll_add_option,
    poll_control,
    poll_create,
    poll_delete,
    poll_edit,
    poll_reset,
    poll_set_closed,
    poll_set_unlisted,
)
from counters.services.registration import Registered, counter_definition, counter_register
from counters.services.vote_options import vote_option_check
from counters.services.votes import VoteOutcome, vote_body, vote_cast, vote_retract

__all__ = [
    "POLL_ACTIONS",
    "Registered",
    "VoteOutcome",
    "badge_counting_set",
    "badge_fetch",
    "counter_definition",
    "counter_make_hot",
    "counter_register",
    "counter_reset",
    "poll_add_option",
    "poll_control",
    "poll_create",
    "poll_delete",
    "poll_edit",
    "poll_reset",
    "poll_set_closed",
    "poll_set_unlisted",
    "view_record",
    "vote_body",
    "vote_cast",
    "vote_option_check",
    "vote_retract",
]
