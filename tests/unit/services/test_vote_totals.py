"""Known poll totals: what a vote's answer shows when it is built without a read after the transaction."""

from __future__ import annotations

import time

from counters.domain.values import CounterState, PollDefinition, PollOption, VoteChange
from counters.services.vote_totals import KnownTotals

POLL = PollDefinition(id="lang", question="?", options=(PollOption("py", "Python"), PollOption("go", "Go")))
NAMES = ["lang.py", "lang.go"]


def state(name: str, value: int, version: int) -> CounterState:
    return CounterState(name=name, kind="votes", value=value, version=version)


def shown(states) -> dict[str, tuple[int, int]]:
    return {name: (s.value, s.version) for name, s in states.items()}


def known_with(py: tuple[int, int], go: tuple[int, int], **kwargs) -> KnownTotals:
    known = KnownTotals(**kwargs)
    known.learn("lang", NAMES, [state("lang.py", *py), state("lang.go", *go)], began=time.monotonic())
    return known


def test_nothing_is_known_before_a_read_nor_after_it_has_aged():
    assert KnownTotals().snapshot("lang") is None
    assert known_with((1, 1), (0, 0), seconds=60).snapshot("lang") is not None
    assert known_with((1, 1), (0, 0), seconds=0).snapshot("lang") is None


def test_the_answer_adds_the_votes_own_change_once_to_what_was_known_before_it():
    known = known_with((3, 7), (1, 2))
    before = known.snapshot("lang")
    moved = VoteChange(poll=POLL, voter="v", choice="go", previous="py")
    assert shown(known.applied(moved, before)) == {"lang.py": (2, 8), "lang.go": (2, 3)}
    retracted = VoteChange(poll=POLL, voter="w", choice=None, previous="go")
    # From a snapshot taken after the first vote was acknowledged: it holds that vote already.
    assert shown(known.applied(retracted, known.snapshot("lang"))) == {"lang.py": (2, 8), "lang.go": (1, 4)}


def test_an_old_total_kept_at_zero_stays_as_it_was_and_none_goes_below_zero():
    known = known_with((0, 5), (0, 0))
    kept = VoteChange(poll=POLL, voter="v", choice="go", previous="py", lowered=False)
    assert shown(known.applied(kept, known.snapshot("lang"))) == {"lang.py": (0, 5), "lang.go": (1, 1)}
    # Known as 0 but lowered meanwhile (a vote this process had not seen yet): never shown below 0.
    lowered = VoteChange(poll=POLL, voter="w", choice=None, previous="py")
    assert shown(known.applied(lowered, known.snapshot("lang")))["lang.py"] == (0, 6)


def test_a_read_replaces_a_guess_of_its_version_and_keeps_a_newer_one():
    known = known_with((1, 1), (0, 0))
    known.applied(VoteChange(poll=POLL, voter="v", choice="py", previous=None), known.snapshot("lang"))
    assert shown(known.snapshot("lang"))["lang.py"] == (2, 2)
    # A read that began before that vote was acknowledged: the guess stays.
    known.learn("lang", NAMES, [state("lang.py", 1, 1), state("lang.go", 0, 0)], began=time.monotonic())
    assert shown(known.snapshot("lang"))["lang.py"] == (2, 2)
    # Another vote went in first, so the guess at version 2 was wrong: a read at version 2 wins.
    known.learn("lang", NAMES, [state("lang.py", 1, 2), state("lang.go", 0, 0)], began=time.monotonic())
    assert shown(known.snapshot("lang"))["lang.py"] == (1, 2)


def test_a_poll_with_an_option_the_snapshot_lacks_is_not_answered_from_it():
    known = KnownTotals()
    known.learn("lang", ["lang.py"], [state("lang.py", 1, 1)], began=time.monotonic())
    change = VoteChange(poll=POLL, voter="v", choice="go", previous=None)
    assert known.applied(change, known.snapshot("lang")) is None
    # A counter the read did not find is known as 0 at version 0.
    known.learn("lang", NAMES, [state("lang.py", 1, 1)], began=time.monotonic())
    assert shown(known.applied(change, known.snapshot("lang"))) == {"lang.py": (1, 1), "lang.go": (1, 1)}
