"""Plain vs sharded increments and batched history writes, against a throwaway DynamoDB Local.

Run: .venv/bin/python bench/hot_counters.py   (prints numbers; asserts nothing)
DynamoDB Local has no partition ceilings, so this measures the client-side cost of sharding and how
many writes the history batcher saves, not DynamoDB's throttling behaviour.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "counters_site.test_settings")

import django

django.setup()


from bench.local_store import bench_dynamo  # noqa: E402

THREADS, PER_THREAD = 8, 250


def hammer(work) -> float:
    """Seconds to run `work` THREADS x PER_THREAD times."""
    started = time.perf_counter()
    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(lambda _: [work() for _ in range(PER_THREAD)], range(THREADS)))
    return time.perf_counter() - started


def main() -> None:
    with bench_dynamo():
        from counters import services
        from counters.background import history_writer as history
        from counters.domain.values import CounterDefinition
        from counters.store import get_store

        store = get_store()
        store.ensure_table()
        store.define_counter(CounterDefinition(name="plain", kind="views"))
        store.define_counter(CounterDefinition(name="sharded", kind="views", shards=8))
        n = THREADS * PER_THREAD
        for name in ("plain", "sharded"):
            seconds = hammer(lambda name=name: store.increment(name, kind="views"))
            state = store.get(name)
            print(f"{name:8s}: {n} increments in {seconds:.2f}s = {n / seconds:,.0f}/s; total {state.value}")
        writes = []
        original = store.add_to_bucket
        store.add_to_bucket = lambda *a, **k: (writes.append(a), original(*a, **k))
        history.flush()
        writes.clear()
        seconds = hammer(lambda: services.view_record(slug="plain"))
        history.flush()
        print(
            f"views   : {n} view_record calls in {seconds:.2f}s = {n / seconds:,.0f}/s; "
            f"history writes {len(writes)} (background flush each second, vs {3 * n} unbatched)"
        )


if __name__ == "__main__":
    main()
