"""A vote's option checked before it spends any allowance: from what the process knows, read rarely."""

from __future__ import annotations

import pytest

from counters.domain.values import PollOption
from counters.exceptions import InvalidInput, UnknownCounter
from counters.services.vote_options import KnownOptions
from tests.support.round_trips import round_trips

GET_POLL = "GetItem"


def test_a_known_option_costs_no_read_and_an_unknown_one_at_most_one_per_window(demo_store):
    known = KnownOptions(seconds=600.0)
    with round_trips(demo_store) as counted:
        known.check("language", "python")  # the first vote for the poll reads it once
        for option in ("go", "rust", "python"):
            known.check("language", option)
        for _ in range(3):
            with pytest.raises(InvalidInput, match="has no option 'cobol'"):
                known.check("language", "cobol")
    assert counted.operations() == [GET_POLL]


def test_an_option_added_elsewhere_is_found_once_the_window_passed(demo_store):
    known = KnownOptions(seconds=0.0)  # every lookup of an option not known reads again
    known.check("language", "python")
    with pytest.raises(InvalidInput):
        known.check("language", "zig")
    demo_store.add_poll_option("language", PollOption("zig", "Zig"))
    with round_trips(demo_store) as counted:
        known.check("language", "zig")
        known.check("language", "zig")  # known now: no read
    assert counted.operations() == [GET_POLL]


def test_an_unknown_poll_is_refused(demo_store):
    with pytest.raises(UnknownCounter):
        KnownOptions().check("nope", "python")
