"""The runtime builds each part once, drops a part with what it was built from, and closes newest first."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from counters.runtime import Runtime, resolve, runtime, use_runtime
from counters.runtime.parts import Part, parts_of

HERE = __name__


class Thing:
    """A fake part: says what it was built from, and notes in its runtime when it is closed."""

    def __init__(self, process: Trial, name: str, *, made_from: Thing | None = None) -> None:
        self.process = process
        self.name = name
        self.made_from = made_from
        process.builds.append(name)

    def close(self) -> None:
        self.process.closed.append(self.name)


class Stuck(Thing):
    """A part whose closing fails."""

    def close(self) -> None:
        raise OSError("the socket is gone already")


def made(name: str, *, kind: type[Thing] = Thing, made_from: str = "") -> Callable[[Trial], Thing]:
    """A factory of the part `name`; one `made_from` another asks the runtime for that part."""

    def factory(process: Trial) -> Thing:
        return kind(process, name, made_from=getattr(process, made_from) if made_from else None)

    return factory


base = made("base")
user = made("user", made_from="base")
kept = made("kept")
lone = made("lone")
shaped = made("shaped")
shaped_user = made("shaped_user", made_from="shaped")
stuck = made("stuck", kind=Stuck)


class Trial(Runtime):
    """The real runtime with small parts of its own, which note their builds and closes."""

    base: Part[Thing] = Part(f"{HERE}.base")
    user: Part[Thing] = Part(f"{HERE}.user")  # asks the runtime for `base`
    kept: Part[Thing] = Part(f"{HERE}.kept", needs=("base",))  # kept per `base`, without asking for it
    lone: Part[Thing] = Part(f"{HERE}.lone")
    shaped: Part[Thing] = Part(f"{HERE}.shaped", settings={"COUNTERS_TRIAL_SIZE"})
    shaped_user: Part[Thing] = Part(f"{HERE}.shaped_user")
    stuck: Part[Thing] = Part(f"{HERE}.stuck")

    def __init__(self, **kwargs: object) -> None:
        self.builds: list[str] = []
        self.closed: list[str] = []
        super().__init__(**kwargs)


def test_a_part_is_built_on_first_use_once_and_then_reused():
    trial = Trial()
    assert trial.builds == [], "nothing is built before it is used"
    first = trial.user
    assert trial.user is first and trial.base is first.made_from
    assert trial.builds == ["base", "user"], "each built once, what a part is built from before it"


def test_dropping_a_part_drops_and_closes_what_was_built_from_it_newest_first():
    trial = Trial()
    old_user, old_base, old_lone = trial.user, trial.base, trial.lone
    trial.kept  # noqa: B018
    trial.drop("base")
    assert trial.closed == ["kept", "user", "base"], "the most recent first"
    assert trial.lone is old_lone, "a part not built from it stays"
    assert trial.user is not old_user and trial.user.made_from is trial.base is not old_base


def test_a_given_part_is_used_as_it_is_never_closed_and_outlives_drops():
    trial = Trial(given={"base": (stand_in := Thing(Trial(), "stand-in"))})
    assert trial.user.made_from is stand_in
    trial.drop("base")
    assert trial.closed == ["user"], "what was built from the stand-in goes, the stand-in is not closed"
    assert trial.base is stand_in
    trial.close()
    assert "stand-in" not in trial.closed


def test_giving_a_part_replaces_the_built_one_and_what_was_built_from_it():
    trial = Trial()
    old_user = trial.user
    stand_in = trial.give("base", Thing(Trial(), "stand-in"))
    assert trial.closed == ["user", "base"]
    assert trial.user is not old_user and trial.user.made_from is stand_in


def test_a_changed_setting_drops_only_the_parts_it_shapes_and_those_built_from_them(settings):
    with use_runtime(Trial()) as trial:
        old_shaped, old_user, old_base = trial.shaped_user.made_from, trial.user, trial.base
        settings.COUNTERS_TRIAL_SIZE = 3
        assert trial.closed == ["shaped_user", "shaped"]
        assert trial.user is old_user and trial.base is old_base, "parts the setting does not shape stay"
        assert trial.shaped is not old_shaped


def test_close_closes_every_built_part_newest_first_and_a_failing_close_stops_none(caplog):
    trial = Trial()
    trial.lone, trial.stuck, trial.user  # noqa: B018
    with caplog.at_level(logging.ERROR, logger="counters.runtime"):
        trial.close()
    assert trial.closed == ["user", "base", "lone"], "the stuck part's failure did not stop the others"
    assert "Closing the runtime's stuck failed" in caplog.text
    assert trial.built("lone") is None and trial.lone is not None, "used again, a part is built afresh"


def test_a_part_the_runtime_does_not_have_is_refused_by_name():
    with pytest.raises(LookupError, match="No part of the runtime is called 'stroe'"):
        Runtime(given={"stroe": object()})
    with pytest.raises(LookupError, match="'brodcaster'"):
        runtime().give("brodcaster", object())


def test_every_part_of_the_real_runtime_names_a_factory_and_parts_it_keeps_with_that_exist():
    declared = parts_of(Runtime)
    for name, part in declared.items():
        assert callable(resolve(part.factory)), f"{name}: {part.factory}"
        assert set(part.needs) <= declared.keys(), name
