"""The capacity and cost model: workers, Redis traffic, DynamoDB units and dollars for a traffic.

Pure arithmetic on the per-worker figures (capacity_figures.py) and DynamoDB's published limits and
on-demand prices; `manage.py counters_capacity` prints it, docs/capacity.md explains it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from counters.domain import capacity_figures as figures

# One partition takes at most 1,000 write units a second (DynamoDB's documented per-partition limit);
# a write of an item up to 1 KB is one unit, a transactional write two.
PARTITION_WRITE_UNITS = 1000
# Warn at this share of the limit: the admin marks counters this close (selectors/hot_keys.py).
NEAR_LIMIT = 0.8
TRANSACTION_UNITS = 2
# On-demand prices in us-east-1 (dollars) as AWS published them from 2024-11-01: check them first.
PRICE_DATE = "2024-11-01"
PRICE_PER_MILLION_WRITE_UNITS = 0.625
PRICE_PER_MILLION_READ_UNITS = 0.125
PRICE_PER_GB_MONTH = 0.25
SECONDS_PER_DAY = 86400
DAYS_PER_MONTH = 30


@dataclass(frozen=True)
class Traffic:
    """What the site must carry: views a day (and the peak's multiple), votes and sockets at peak."""

    views_per_day: int = 0
    peak_factor: float = 3.0
    votes_per_second: float = 0.0
    sockets: int = 0
    outside_writes_per_second: float = 0.0
    pages: int = 100
    hottest_page_share: float = 0.1


@dataclass(frozen=True)
class Estimate:
    """The model's answer for one traffic."""

    counting_workers: int
    socket_workers: int
    redis_messages_per_second: float
    write_units_per_month: float
    read_units_per_month: float
    stored_gb: float
    dollars_per_month: float
    hottest_page_writes_per_second: float
    hottest_page_shards: int


def peak_views_per_second(traffic: Traffic) -> float:
    """Views a second at the peak."""
    return traffic.views_per_day / SECONDS_PER_DAY * traffic.peak_factor


def key_writes_per_second(views_per_second: float, *, workers: int) -> float:
    """Write units a second on one page's key: one per view, at most one write in flight per worker."""
    # Group commit sends one write per key at a time from each worker and gathers the views that
    # arrive meanwhile into the next, so a key never takes more than workers / write latency.
    return min(views_per_second, workers * 1000 / figures.WRITE_LATENCY_MS)


def shards_needed(write_units_per_second: float) -> int:
    """Shards (counters_hot) that keep each of a key's items under NEAR_LIMIT of a partition."""
    return max(1, math.ceil(write_units_per_second / (PARTITION_WRITE_UNITS * NEAR_LIMIT)))


def vote_option_writes_per_second(votes_per_second: float) -> float:
    """Write units a second on one option's total if every vote picks it (a transaction: two units)."""
    return votes_per_second * TRANSACTION_UNITS


def estimate(traffic: Traffic) -> Estimate:
    """Workers, Redis messages, DynamoDB units and the monthly price for `traffic`."""
    views = peak_views_per_second(traffic)
    core_seconds = (views * figures.BEACON_CPU_MS + traffic.votes_per_second * figures.VOTE_CPU_MS) / 1000
    counting = max(1, math.ceil(core_seconds / figures.CORE_UTILISATION))
    frames = traffic.sockets * figures.FRAMES_PER_SOCKET_S * figures.FRAME_CPU_US / 1e6
    sockets = math.ceil(
        max(traffic.sockets / figures.SOCKETS_PER_SOCKET_WORKER, frames / figures.CORE_UTILISATION)
    )

    changed = min(traffic.pages, views + traffic.votes_per_second + traffic.outside_writes_per_second)
    redis = changed * figures.REDIS_MESSAGES_PER_COUNTER_S * counting
    hottest = key_writes_per_second(views * traffic.hottest_page_share, workers=counting)
    views_per_month = traffic.views_per_day * DAYS_PER_MONTH
    average = traffic.peak_factor or 1
    votes_per_month = traffic.votes_per_second / average * SECONDS_PER_DAY * DAYS_PER_MONTH
    writes = views_per_month + votes_per_month * figures.VOTE_ITEMS * TRANSACTION_UNITS
    reads = views_per_month + votes_per_month  # a page reads its neighbours' totals; a vote its poll
    stored = traffic.pages * figures.STORED_BYTES_PER_PAGE_DAY * 2 / 1e9  # two days of minute buckets
    dollars = (
        writes / 1e6 * PRICE_PER_MILLION_WRITE_UNITS
        + reads / 1e6 * PRICE_PER_MILLION_READ_UNITS
        + stored * PRICE_PER_GB_MONTH
    )
    return Estimate(
        counting_workers=counting,
        socket_workers=sockets,
        redis_messages_per_second=redis,
        write_units_per_month=writes,
        read_units_per_month=reads,
        stored_gb=stored,
        dollars_per_month=dollars,
        hottest_page_writes_per_second=hottest,
        hottest_page_shards=shards_needed(hottest),
    )
