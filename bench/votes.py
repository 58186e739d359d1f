"""Vote throughput, store round trips per vote and transaction retries, against a throwaway DynamoDB Local.

Run: .venv/bin/python bench/votes.py   (prints numbers; asserts nothing)
VOTERS voters each click CLICKS random options of one 4-option poll from THREADS threads at once,
through services.vote_cast / vote_retract, with and without an Idempotency-Key per click. A server's
event loop runs beside them, as under daphne, so the read for the live push is left to the read-back;
round trips are counted on the wire (botocore's before-send): those each click waited for, and the
read-back's apart.
"""

from __future__ import annotations

import os
import random
import sys
import threading
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


def run(store, services, *, keyed: bool, label: str) -> float:
    """One round on a fresh poll; print throughput, round trips, outcomes and transaction attempts."""
    from counters.exceptions import CounterError
    from counters.web.http.errors import answer_for
    from tests.support.round_trips import round_trips

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

    clickers: set[int] = set()
    trips_by_kind: dict[str, list[int]] = {}

    def click(entry) -> str:
        voter, option = entry
        clickers.add(threading.get_ident())
        key = uuid.uuid4().hex if keyed else None
        trips_before = len(wire.of_thread())
        try:
            if option is None:
                outcome = services.vote_retract(poll_id=poll, voter=voter, idempotency_key=key)
            else:
                outcome = services.vote_cast(poll_id=poll, voter=voter, option=option, idempotency_key=key)
        except CounterError as exc:
            return answer_for(exc).code
        trips_by_kind.setdefault(kind_of(outcome.body), []).append(len(wire.of_thread()) - trips_before)
        return "ok"

    with round_trips(store) as wire:
        started = time.perf_counter()
        with ThreadPoolExecutor(THREADS) as pool:
            outcomes = Counter(pool.map(click, clicks))
        seconds = time.perf_counter() - started
        time.sleep(0.5)  # the last read-back
    waited = sum(len(wire.of_thread(thread)) for thread in clickers)
    read_back = len(wire.operations()) - waited
    store.retrying.transact_write_items = original
    totals = {s.name: s.value for s in store.get_many(f"{poll}.{o}" for o in "abcd")}
    held = store.poll_voters(poll)
    exact = sum(totals.values()) == len(held) and all(v >= 0 for v in totals.values())
    by_kind = ", ".join(
        f"{kind} {sum(trips) / len(trips):.2f} (x{len(trips)})"
        for kind, trips in sorted(trips_by_kind.items())
    )
    print(
        f"{label}: {len(clicks)} clicks in {seconds:.2f}s = {len(clicks) / seconds:,.0f}/s; "
        f"round trips per click {waited / len(clicks):.2f} (+ read-back {read_back / len(clicks):.2f}); "
        f"per answered click by kind: {by_kind}; "
        f"outcomes {dict(outcomes)}; transactions {sent['transactions']} (cancelled {sent['cancelled']}); "
        f"votes held {len(held)}, totals {sum(totals.values())}, exact {exact}"
    )
    return len(clicks) / seconds


def kind_of(body: dict) -> str:
    """What an answered click did: a first vote, a move, a retraction, or nothing."""
    if not body["counted"]:
        return "nothing changed"
    if body["choice"] is None:
        return "retraction"
    return "move" if body["previous"] else "first vote"


def main() -> None:
    with bench_dynamo():
        from counters import services
        from counters.store import get_store
        from tests.support.server_loop import server_loop

        store = get_store()
        store.ensure_table()
        print(f"{VOTERS} voters x {CLICKS} clicks, {THREADS} threads, one process")
        run(store, services, keyed=False, label="warm-up (DynamoDB Local's JIT), not compared")
        # The baseline: without a server loop every answer reads the totals after its transaction.
        baseline = run(store, services, keyed=False, label="plain, totals read after (baseline)")
        with server_loop():
            plain = run(store, services, keyed=False, label="plain, server loop")
            run(store, services, keyed=True, label="keyed, server loop")
        print(f"plain with a server loop / baseline: {plain / baseline:.2f}x clicks/s")


if __name__ == "__main__":
    main()
