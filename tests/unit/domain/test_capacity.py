"""The capacity model: more traffic needs more of everything; a hot key passes a partition's limit."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from counters.domain import capacity
from counters.domain import capacity_figures as figures


def test_ten_times_the_views_needs_more_workers_and_ten_times_the_writes():
    small = capacity.estimate(capacity.Traffic(views_per_day=10_000_000))
    large = capacity.estimate(capacity.Traffic(views_per_day=100_000_000))
    assert large.counting_workers > small.counting_workers
    assert large.write_units_per_month == pytest.approx(10 * small.write_units_per_month)
    assert large.dollars_per_month > small.dollars_per_month


def test_a_room_of_sockets_needs_socket_workers_by_the_measured_figure():
    room = capacity.estimate(capacity.Traffic(sockets=50_000))
    assert room.socket_workers == 50_000 // figures.SOCKETS_PER_SOCKET_WORKER


def test_group_commit_caps_one_pages_writes_at_one_in_flight_per_worker():
    cap = 2 * 1000 / figures.WRITE_LATENCY_MS
    assert capacity.key_writes_per_second(100, workers=2) == 100  # quiet: one write per view
    assert capacity.key_writes_per_second(1_000_000, workers=2) == cap


def test_a_page_past_the_partition_limit_needs_shards():
    assert capacity.shards_needed(100) == 1
    assert capacity.shards_needed(capacity.PARTITION_WRITE_UNITS * 2) == 3  # each under 80% of the limit


def test_a_poll_option_passes_the_limit_at_half_the_votes_a_plain_write_would():
    assert capacity.vote_option_writes_per_second(capacity.PARTITION_WRITE_UNITS / 2) == 1000


def test_the_command_prints_the_estimate_and_the_hot_key_check():
    out = io.StringIO()
    call_command("counters_capacity", "--views-per-day", "10000000", "--votes-per-second", "600", stdout=out)
    text = out.getvalue()
    expected = capacity.estimate(capacity.Traffic(views_per_day=10_000_000, votes_per_second=600))
    assert f"counting workers: {expected.counting_workers}\n" in text
    assert "one poll option taking every vote: 1,200 write units/s of 1,000" in text
    assert capacity.PRICE_DATE in text
