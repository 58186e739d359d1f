"""A reset while 8 threads keep incrementing (DynamoDB Local): applied at the version shown, or refused."""

from __future__ import annotations

import threading

import pytest

from counters import services
from counters.domain.values import CounterDefinition
from counters.exceptions import VersionConflict
from tests.support.timing import wait_until

THREADS = 8
BEFORE_RESET = 80  # increments made before the first reset attempt
AFTER_RESET = 80  # increments still made after the reset applied
MAX_ATTEMPTS = 500
# Each thread pauses this long between increments (~80 writes/s in all). Unpaced, increments land
# every few milliseconds and no version-conditional reset can win the read-to-write window.
PAUSE = 0.1


class Hammer:
    """THREADS threads incrementing one counter until stopped, keeping every answer."""

    def __init__(self, store, name: str) -> None:
        self.store, self.name = store, name
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.answers: list[tuple[int, int]] = []  # (value, version) of every acknowledged increment
        self.errors: list[BaseException] = []
        self.threads = [threading.Thread(target=self.run) for _ in range(THREADS)]

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                state = self.store.increment(self.name, kind="views")
                with self.lock:
                    self.answers.append((state.value, state.version))
                self.stop.wait(PAUSE)
        except BaseException as exc:  # surfaced by the test, never swallowed
            self.errors.append(exc)

    def made(self) -> int:
        with self.lock:
            return len(self.answers)

    def wait_until(self, count: int) -> None:
        """Wait until `count` increments were acknowledged (or a thread failed); fail after a deadline."""
        # At ~80 writes/s, `count` takes count/80 s; ten times that, stretched by the machine's factor.
        wait_until(lambda: self.made() >= count or self.errors, f"{count} increments", timeout=count / 8)

    def __enter__(self) -> Hammer:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()


@pytest.mark.parametrize("shards", [0, 4])
def test_reset_under_increments_applies_at_the_version_shown_and_loses_nothing(store, shards):
    store.define_counter(CounterDefinition(name="busy", kind="views", shards=shards))
    attempts, refusals = 0, []
    with Hammer(store, "busy") as hammer:
        hammer.wait_until(BEFORE_RESET)
        shown = store.get("busy")  # what the admin page shows
        while True:
            attempts += 1
            assert attempts <= MAX_ATTEMPTS, "the reset never found the counter at the version shown"
            try:
                done = services.counter_reset(
                    name="busy", expected_version=shown.version, actor="ann", reason="load"
                )
                break
            except VersionConflict as conflict:
                current = conflict.current
                assert current is not None and current.version > shown.version
                refusals.append((shown, current))
                shown = current  # the admin sees the current value and confirms again
        made_at_reset = hammer.made()
        hammer.wait_until(made_at_reset + AFTER_RESET)
    assert hammer.errors == []

    [audit] = store.reset_history("busy")
    assert (audit.old_version, audit.actor, audit.reason) == (shown.version, "ann", "load")
    assert done.version == audit.new_version == shown.version + 1 + shards
    # The value it replaced is the one shown at that version, and no increment is lost either side.
    assert audit.old_value == shown.value
    final = store.get("busy")
    total = len(hammer.answers)
    assert final.value == total - audit.old_value
    assert final.value >= AFTER_RESET - THREADS  # increments went on after the reset
    if not shards:
        # A plain counter answers each increment with the version of the write that carried it (one write
        # may carry several: group commit): before the reset 1..old, after it new+1..final, no version
        # missing, and each write raised the value by exactly the increments it answered.
        answered: dict[int, list[int]] = {}
        for value, version in hammer.answers:
            answered.setdefault(version, []).append(value)
        before = list(range(1, audit.old_version + 1))
        after = list(range(audit.new_version + 1, final.version + 1))
        assert sorted(answered) == before + after
        by_version = {version: values[0] for version, values in answered.items()}
        assert all(values == [by_version[version]] * len(values) for version, values in answered.items())
        for versions in (before, after):
            carried = 0
            for version in versions:
                carried += len(answered[version])
                assert by_version[version] == carried
        assert audit.old_value == by_version[audit.old_version]
        for _, current in refusals:  # each refusal showed a real state of the counter
            assert current.value == by_version[current.version]
    print(f"shards={shards}: {attempts} attempts, {len(refusals)} refused, {total} increments")
