"""How often a version-conditional reset wins while 8 threads increment, by write rate (DynamoDB Local).

Run: .venv/bin/python bench/reset_contention.py   (prints numbers; asserts nothing)
Each round paces 8 incrementing threads, then resets the way an admin confirming again would: try at
the version read, on a conflict retry at the version the conflict reported, up to MAX_ATTEMPTS times.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "counters_site.test_settings")

import django

django.setup()


from bench.local_store import bench_dynamo  # noqa: E402

THREADS = 8
PAUSES = (0.0, 0.01, 0.03, 0.1)  # seconds each thread waits between increments
SHARDS = (0, 4)
MAX_ATTEMPTS = 200
WARMUP_SECONDS = 1.0  # the write rate is measured over this second, before the reset starts


def round_(store, name: str, pause: float) -> tuple[float, int, bool, float]:
    """(writes per second, reset attempts, applied, seconds spent resetting) for one paced round."""
    from counters.exceptions import VersionConflict

    stop, made = threading.Event(), [0] * THREADS

    def work(index: int) -> None:
        while not stop.is_set():
            store.increment(name, kind="views")
            made[index] += 1
            stop.wait(pause)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    time.sleep(0.2)  # threads up and writing
    before = sum(made)
    time.sleep(WARMUP_SECONDS)
    rate = (sum(made) - before) / WARMUP_SECONDS
    started = time.perf_counter()
    version, attempts, applied = store.get(name).version, 0, False
    while attempts < MAX_ATTEMPTS and not applied:
        attempts += 1
        try:
            store.reset(name, expected_version=version, actor="bench", reason="bench")
            applied = True
        except VersionConflict as conflict:
            version = conflict.current.version
    seconds = time.perf_counter() - started
    stop.set()
    for thread in threads:
        thread.join()
    return rate, attempts, applied, seconds


def main() -> None:
    with bench_dynamo():
        from counters.domain.values import CounterDefinition
        from counters.store import get_store

        store = get_store()
        store.ensure_table()
        for shards in SHARDS:
            for pause in PAUSES:
                name = f"c{shards}-{int(pause * 1000)}"
                store.define_counter(CounterDefinition(name=name, kind="views", shards=shards))
                rate, attempts, applied, seconds = round_(store, name, pause)
                outcome = "applied after" if applied else "NOT applied in"
                print(
                    f"shards={shards} pause={pause * 1000:4.0f} ms: ~{rate:5.0f} writes/s; "
                    f"reset {outcome} {attempts} attempts ({seconds:.2f}s)"
                )


if __name__ == "__main__":
    main()
