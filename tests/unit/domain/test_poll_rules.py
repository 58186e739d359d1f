"""When a poll is closed and who sees its totals (counters/domain/poll_rules.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from counters.domain.poll_rules import (
    CODE_ALPHABET,
    CODE_LENGTH,
    is_closed,
    new_code,
    normalize_code,
    results_visible,
)
from counters.domain.values import PollDefinition
from counters.exceptions import InvalidInput

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def poll(**settings) -> PollDefinition:
    return PollDefinition(id="p", question="Q?", **settings)


def test_codes_use_only_unambiguous_characters():
    codes = {new_code() for _ in range(200)}
    assert len(codes) > 190
    for code in codes:
        assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
    assert not set("01OIL") & set(CODE_ALPHABET)


def test_a_code_is_read_in_any_case_and_refused_when_malformed():
    assert normalize_code(" k7qxm ") == "K7QXM"
    for bad in ("K7QX", "K7QXMM", "K0QXM", "KIQXM", None, 12345):
        with pytest.raises(InvalidInput):
            normalize_code(bad)


def test_a_poll_closes_by_flag_time_or_voters():
    assert not is_closed(poll(), now=NOW, voters=10_000)
    assert is_closed(poll(closed=True), now=NOW, voters=0)
    at = (NOW + timedelta(seconds=1)).isoformat()
    assert not is_closed(poll(closes_at=at), now=NOW, voters=0)
    assert is_closed(poll(closes_at=at), now=NOW + timedelta(seconds=1), voters=0)
    assert is_closed(poll(closes_at="2026-11-25T11:59:59"), now=NOW, voters=0)  # naive: UTC
    assert not is_closed(poll(max_voters=3), now=NOW, voters=2)
    assert is_closed(poll(max_voters=3), now=NOW, voters=3)


@pytest.mark.parametrize(
    ("settings", "has_voted", "voters", "audience_sees"),
    [
        ({"results": "always"}, False, 0, True),
        ({"results": "voted"}, False, 0, False),
        ({"results": "voted"}, True, 0, True),
        ({"results": "voted", "closed": True}, False, 0, True),
        ({"results": "closed"}, True, 0, False),
        ({"results": "closed", "closed": True}, False, 0, True),
        ({"results": "closed", "max_voters": 2}, False, 2, True),
        ({"results": "revealed"}, True, 0, False),
        ({"results": "revealed", "closed": True}, True, 0, False),
        ({"results": "revealed", "revealed": True}, False, 0, True),
    ],
)
def test_the_audience_sees_totals_by_the_rule_and_staff_always(settings, has_voted, voters, audience_sees):
    rule = poll(**settings)
    seen = results_visible(rule, staff=False, has_voted=has_voted, now=NOW, voters=voters)
    assert seen is audience_sees
    assert results_visible(rule, staff=True, has_voted=False, now=NOW, voters=0) is True
