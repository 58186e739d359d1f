"""A talk's rules: ids derived from text, options one per line, moves, the next poll, closing times."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from counters.domain import talks
from counters.domain.values import Talk, TalkPoll
from counters.exceptions import InvalidInput

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def talk(*ids: str, current: str = "") -> Talk:
    return Talk(id="t", title="T", polls=tuple(TalkPoll(poll_id) for poll_id in ids), current=current)


def test_ids_are_slugs_of_the_text_made_unique():
    assert talks.unique_id("Café: au lait?", taken=set(), fallback="poll") == "cafe-au-lait"
    assert talks.unique_id("Which one?", taken={"which-one", "which-one-2"}, fallback="poll") == "which-one-3"
    assert talks.unique_id("???", taken=set(), fallback="poll") == "poll"
    assert len(talks.unique_id("x" * 300, taken={"x" * 60}, fallback="poll")) <= 64


def test_options_one_per_line_get_distinct_ids_and_keep_their_labels():
    assert talks.options_from_lines(" Yes \n\nNo\nyes!\n😀") == [
        ("yes", "Yes"),
        ("no", "No"),
        ("yes-2", "yes!"),
        ("option-4", "😀"),
    ]


def test_moves_stay_inside_the_talk_and_a_drag_names_each_poll_once():
    assert talks.moved(talk("a", "b", "c"), "c", "up").poll_ids == ["a", "c", "b"]
    assert talks.moved(talk("a", "b"), "a", "up").poll_ids == ["a", "b"]
    assert talks.reordered(talk("a", "b", "c"), ["c", "a", "b"]).poll_ids == ["c", "a", "b"]
    with pytest.raises(InvalidInput):
        talks.reordered(talk("a", "b"), ["a", "a"])
    with pytest.raises(InvalidInput):
        talks.moved(talk("a"), "z", "up")


def test_the_next_poll_is_the_first_then_each_after_the_open_one():
    assert talks.next_poll(talk("a", "b")) == "a"
    assert talks.next_poll(talk("a", "b", current="a")) == "b"
    assert talks.next_poll(talk("a", "b", current="b")) is None


def test_a_picked_time_is_in_the_sites_zone_and_must_be_ahead():
    paris = ZoneInfo("Europe/Paris")
    assert talks.local_closing_time("2026-11-25T18:00", zone=paris, now=NOW) == "2026-11-25T17:00:00+00:00"
    assert talks.local_closing_time("", zone=paris, now=NOW) is None
    with pytest.raises(InvalidInput, match="passed"):
        talks.local_closing_time("2026-11-25T12:30", zone=paris, now=NOW)
    assert talks.closing_after(2, now=NOW) == "2026-11-25T12:02:00+00:00"
    with pytest.raises(InvalidInput):
        talks.validate_minutes("0")
