"""The coalescer: newest version per counter, at most one send per interval, and a busy share."""

from __future__ import annotations

import asyncio
import itertools

from counters.live.coalesce import Coalescer, Pending
from counters.live.loop import LiveLoop
from tests.support.timing import until

INTERVAL = 0.02


class Recorder:
    """A send that takes `takes` seconds and records when each began and what it carried."""

    def __init__(self, takes: float) -> None:
        self.takes = takes
        self.sends: list[tuple[float, Pending]] = []

    async def __call__(self, pending: Pending) -> None:
        self.sends.append((asyncio.get_running_loop().time(), dict(pending)))
        await asyncio.sleep(self.takes)


def sent_last(send: Recorder, version: int) -> bool:
    """Whether the last send began carried version `version` of `a` (the newest fed: nothing follows it)."""
    return bool(send.sends) and send.sends[-1][1] == {"a": (version, version, "")}


async def feed(coalescer: Coalescer, count: int) -> None:
    """One update of `a` every 5 ms, each a newer version (the pace is the load under test)."""
    for version in range(1, count + 1):
        coalescer.add([("a", version, version)])
        await asyncio.sleep(0.005)


async def test_sends_keep_the_newest_version_and_the_interval():
    send = Recorder(takes=0.0)
    coalescer = Coalescer(LiveLoop(), send, interval=lambda: INTERVAL, what="test")
    await feed(coalescer, 20)
    await until(lambda: sent_last(send, 20), "the newest version sent", timeout=5)
    gaps = [b[0] - a[0] for a, b in zip(send.sends, send.sends[1:], strict=False)]
    assert gaps and min(gaps) >= INTERVAL * 0.9


async def test_a_slow_send_spaces_the_next_by_the_busy_share():
    # Each send takes 40 ms; allowed a quarter of the time, the next may start 120 ms after it ends.
    send = Recorder(takes=0.04)
    coalescer = Coalescer(LiveLoop(), send, interval=lambda: INTERVAL, what="test", busy_share=0.25)
    await feed(coalescer, 60)
    await until(lambda: sent_last(send, 60), "the newest version sent", timeout=5)
    starts = [at for at, _ in send.sends]
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert len(gaps) >= 1 and min(gaps) >= (0.04 + 0.12) * 0.9
    assert send.sends[-1][1] == {"a": (60, 60, "")}, "the last send still carries the newest state"
    # Without the share the same sends follow each other at the interval.
    plain = Recorder(takes=0.04)
    await feed(Coalescer(LiveLoop(), plain, interval=lambda: INTERVAL, what="test"), 60)
    await until(lambda: sent_last(plain, 60), "the newest version sent", timeout=5)
    assert len(plain.sends) > len(send.sends)
