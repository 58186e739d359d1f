"""Reads (HackSoft style) shaped for pages, the JSON API and websocket snapshots."""

from counters.selectors.counters import (
    PageMeta,
    counter_detail,
    counter_get,
    counter_list,
    counter_resets,
    counter_search,
    counter_states,
    counter_viewing_now,
    page_meta,
    with_visitors_today,
)
from counters.selectors.history import CounterHistory, counter_history
from counters.selectors.overview import Overview, PageTraffic, overview
from counters.selectors.polls import (
    OptionTotal,
    PollTotals,
    dashboard_polls,
    hidden_counters,
    now_utc,
    option_counters,
    poll_for_asker,
    poll_list,
    poll_totals,
    poll_totals_for,
    poll_totals_from_states,
    voter_choices,
    voter_picks,
)
from counters.selectors.sparklines import sparklines

__all__ = [
    "CounterHistory",
    "OptionTotal",
    "Overview",
    "PageMeta",
    "PageTraffic",
    "PollTotals",
    "counter_detail",
    "counter_get",
    "counter_history",
    "counter_list",
    "counter_resets",
    "counter_search",
    "counter_states",
    "counter_viewing_now",
    "dashboard_polls",
    "hidden_counters",
    "now_utc",
    "option_counters",
    "overview",
    "page_meta",
    "poll_for_asker",
    "poll_list",
    "poll_totals",
    "poll_totals_for",
    "poll_totals_from_states",
    "sparklines",
    "voter_choices",
    "voter_picks",
    "with_visitors_today",
]
