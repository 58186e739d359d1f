"""Group commit on the event loop: beacons of one page that meet share one write, each gets its outcome."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from counters.exceptions import StoreUnavailable
from counters.web.asgi.beacon_batches import LoopBatches


class SlowStore:
    """Writes that take a while, recording how many requests each one carried."""

    def __init__(self, fail: bool = False) -> None:
        self.writes: list[tuple[str, int]] = []
        self.total: dict[str, int] = {}
        self.fail = fail
        self.lock = threading.Lock()

    def write(self, name: str, count: int) -> int:
        threading.Event().wait(0.02)
        if self.fail:
            raise StoreUnavailable("down")
        with self.lock:
            self.writes.append((name, count))
            self.total[name] = self.total.get(name, 0) + count
            return self.total[name]


async def test_requests_that_meet_share_writes_and_each_is_counted_once():
    store = SlowStore()
    batches = LoopBatches(store.write, ThreadPoolExecutor(4))
    results = await asyncio.gather(*(batches.submit("docs") for _ in range(50)), batches.submit("blog"))
    assert store.total == {"docs": 50, "blog": 1}
    assert sum(count for name, count in store.writes if name == "docs") == 50
    assert len([name for name, _ in store.writes if name == "docs"]) < 50  # they rode together
    assert max(results[:50]) == 50  # the last write's answer is the total


async def test_a_failed_write_fails_every_request_it_carried_and_the_next_writes_again():
    store = SlowStore(fail=True)
    batches = LoopBatches(store.write, ThreadPoolExecutor(2))
    outcomes = await asyncio.gather(*(batches.submit("docs") for _ in range(10)), return_exceptions=True)
    assert all(isinstance(outcome, StoreUnavailable) for outcome in outcomes)
    store.fail = False
    assert await batches.submit("docs") == 1


async def test_a_request_that_went_away_does_not_stop_the_others():
    store = SlowStore()
    batches = LoopBatches(store.write, ThreadPoolExecutor(2))
    first = asyncio.ensure_future(batches.submit("docs"))
    others = [asyncio.ensure_future(batches.submit("docs")) for _ in range(3)]
    await asyncio.sleep(0)
    others[0].cancel()
    assert await first == 1
    assert await asyncio.gather(others[1], others[2]) == [4, 4]
    with pytest.raises(asyncio.CancelledError):
        await others[0]
