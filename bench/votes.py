"""Vote throughput and transaction retries under contention, against a throwaway DynamoDB Local.

Run: .venv/bin/python bench/votes.py   (prints numbers; asserts nothing)
VOTERS voters each click CLICKS random options of one 4-option poll from THREADS threads at once,
through services.vote_cast / vote_retract, with and without an Idempotency-Key per click.
"""

from __future__ import annotations

import os
import random
import sys
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "counters_site.test_settings")

import django

django.setup()


from bench.local_store import bench_dynamo  # noqa: E402

VOTERS, CLICKS, THREADS = 100, 4, 32


def run(store, services, *, keyed: bool) -> None:
    """One round on a fresh poll; print throughput, outcomes and transaction attempts."""
    from counters.exceptions import CounterError
    from counters.web.errors import answer_for

    poll = f"bench-{uuid.uuid4().hex[:6]}"
    services.poll_create(poll_id=poll, question="Bench?", options=[(o, o) for o in "abcd"])
    rng = random.Random(1)
    clicks = [
        (f"anon:{v}", rng.choice(["a", "b", "c", "d", None])) for v in range(VOTERS) for _ in range(CLICKS)
    ]
    rng.shuffle(clicks)
    sent = Counter()
    original = store.retrying.transact_write_items

    def counted(**kwargs):
        sent["transactions"] += 1
        try:
            return original(**kwargs)
        except store.retrying.exceptions.TransactionCanceledException:
            sent["cancelled"] += 1
            raise

    store.retrying.transact_write_items = counted

    def click(entry) -> str:
        voter, option = entry
        key = uuid.uuid4().hex if keyed else None
        try:
            if option is None:
                services.vote_retract(poll_id=poll, voter=voter, idempotency_key=key)
            else:
                services.vote_cast(poll_id=poll, voter=voter, option=option, idempotency_key=key)
            return "ok"
        except CounterError as exc:
            return answer_for(exc).code

    started = time.perf_counter()
    with ThreadPoolExecutor(THREADS) as pool:
        outcomes = Counter(pool.map(click, clicks))
    seconds = time.perf_counter() - started
    store.retrying.transact_write_items = original
    totals = {s.name: s.value for s in store.get_many(f"{poll}.{o}" for o in "abcd")}
    held = store.poll_voters(poll)
    exact = sum(totals.values()) == len(held) and all(v >= 0 for v in totals.values())
    label = "keyed" if keyed else "plain"
    print(
        f"{label}: {len(clicks)} clicks in {seconds:.2f}s = {len(clicks) / seconds:,.0f}/s; "
        f"outcomes {dict(outcomes)}; transactions {sent['transactions']} (cancelled {sent['cancelled']}); "
        f"votes held {len(held)}, totals {sum(totals.values())}, exact {exact}"
    )


def main() -> None:
    with bench_dynamo():
        from counters import services
        from counters.store import get_store

        store = get_store()
        store.ensure_table()
        print(f"{VOTERS} voters x {CLICKS} clicks, {THREADS} threads, one process")
        run(store, services, keyed=False)
        run(store, services, keyed=True)


if __name__ == "__main__":
    main()
