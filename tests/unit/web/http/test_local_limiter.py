"""This process's own vote limiter takes checks from many request threads at once: they take turns.

`limits`' MemoryStorage (5.8) starts its expiry timer inside `incr` without a lock, and two threads can
start the same timer twice (a 500 for the second vote); ThreadSafeMemoryStorage lets one in at a time.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter

from counters.web.http.ratelimit import ThreadSafeMemoryStorage

THREADS = 16
LIMIT = RateLimitItemPerMinute(1000)


def test_checks_from_many_threads_take_turns_and_all_count(monkeypatch):
    inside, most = [0], [0]
    lock = threading.Lock()
    unlocked_incr = MemoryStorage.incr

    def watched_incr(self, key: str, expiry: float, amount: int = 1) -> int:
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.005)  # long enough that a second thread would be inside too, without turns
        try:
            return unlocked_incr(self, key, expiry, amount)
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setattr(MemoryStorage, "incr", watched_incr)
    limiter = FixedWindowRateLimiter(ThreadSafeMemoryStorage())
    ready = threading.Barrier(THREADS)

    def check(_: int) -> bool:
        ready.wait()
        return limiter.hit(LIMIT, "votes", "voter")

    with ThreadPoolExecutor(THREADS) as pool:
        assert all(pool.map(check, range(THREADS)))
    assert most[0] == 1
    assert limiter.get_window_stats(LIMIT, "votes", "voter").remaining == 1000 - THREADS
