"""Reads (HackSoft style) shaped for pages, the JSON API and websocket snapshots."""

from counters.selectors.counters import (
    PageMeta,
    counter_detail,
    counter_get,
    counter_list,
    counter_resets,
    counter_search,
    counter_states,
    page_meta,
)
from counters.selectors.history import CounterHistory, counter_history
from counters.selectors.polls import (
    OptionTotal,
    PollTotals,
    option_counters,
    poll_list,
    poll_totals,
    poll_totals_for,
    poll_totals_from_states,
    voter_choices,
)

__all__ = [
    "CounterHistory",
    "OptionTotal",
    "PageMeta",
    "PollTotals",
    "counter_detail",
    "counter_get",
    "counter_history",
    "counter_list",
    "counter_resets",
    "counter_search",
    "counter_states",
    "option_counters",
    "page_meta",
    "poll_list",
    "poll_totals",
    "poll_totals_for",
    "poll_totals_from_states",
    "voter_choices",
]
