"""What counting unique visitors and bot views adds to a view: requests, write units, latency.

Run: .venv/bin/python bench/visitors.py   (prints numbers; asserts nothing)
Against a throwaway DynamoDB Local, in this process, 300 views per row, the rows interleaved view by
view (a repeat right after the same visitor's first). DynamoDB Local reports the
write units it would charge (a transaction's items at 1 each, where DynamoDB charges 2) and none for
a cancelled transaction; its latencies are a laptop's, not DynamoDB's.
"""

from __future__ import annotations

import collections
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "counters_site.test_settings")

import django

django.setup()

from bench.local_store import bench_dynamo  # noqa: E402

VIEWS = 300
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"


class Meter:
    """Counts the DynamoDB requests and reported write units of whatever runs under a label."""

    def __init__(self, clients) -> None:
        self.label = ""
        self.requests: collections.Counter = collections.Counter()
        self.units: collections.Counter = collections.Counter()
        for client in clients:
            client.meta.events.register("provide-client-params.dynamodb.*", self._sent)
            client.meta.events.register("after-call.dynamodb.*", self._answered)

    def _sent(self, event_name: str, params: dict, **kwargs) -> None:
        self.requests[(self.label, event_name.rsplit(".", 1)[-1])] += 1
        params["ReturnConsumedCapacity"] = "TOTAL"

    def _answered(self, parsed: dict, **kwargs) -> None:
        consumed = parsed.get("ConsumedCapacity") or []
        for entry in consumed if isinstance(consumed, list) else [consumed]:
            self.units[self.label] += entry.get("CapacityUnits", 0)

    def rows(self, views: dict[str, Callable[[int], object]]) -> None:
        """Run VIEWS views of each kind, interleaved so background load hits all alike; print each's cost."""
        latencies: dict[str, list[float]] = {label: [] for label in views}
        for i in range(VIEWS):
            for label, view in views.items():
                self.label = label
                started = time.perf_counter()
                view(i)
                latencies[label].append(time.perf_counter() - started)
        self.label = ""
        for label in views:
            calls = ", ".join(
                f"{op} {count / VIEWS:.2f}"
                for (row, op), count in sorted(self.requests.items())
                if row == label
            )
            print(
                f"{label:34s} p50 {statistics.median(latencies[label]) * 1e3:5.1f} ms  "
                f"requests/view: {calls}  reported units/view: {self.units[label] / VIEWS:.2f}"
            )


def main() -> None:
    with bench_dynamo():
        from counters import services
        from counters.background import history_writer
        from counters.demo import seed_demo
        from counters.domain import bots
        from counters.domain.visitors import Client
        from counters.live import broadcast
        from counters.services.visitors import visitors_forget
        from counters.store import get_store

        broadcast.publish = lambda states: None  # no server loop here; the push is not measured
        store = get_store()
        store.ensure_table()
        seed_demo(store)
        meter = Meter({id(c): c for c in (store.gateway.single_shot, store.gateway.retrying)}.values())

        def person(i: int) -> Client:
            return Client(address=f"192.0.2.{i % 250}", user_agent=f"{BROWSER} {i // 250}")

        for _ in range(VIEWS):  # warm: connections, the day's salt
            services.view_record(slug="docs", client=person(10_000))
        bot = Client("192.0.2.1", "curl/8")
        meter.rows(
            {
                "view without a client": lambda i: services.view_record(slug="docs"),
                "first view of a visitor": lambda i: services.view_record(slug="docs", client=person(i)),
                "repeat, seen by this process": lambda i: services.view_record(slug="docs", client=person(i)),
                # A visitor of the site already (above): the page's first visit only.
                "first view of another page": lambda i: services.view_record(
                    slug="welcome", client=person(i)
                ),
                "bot view": lambda i: services.view_record(slug="docs", client=bot),
            }
        )
        visitors_forget()
        meter.rows(
            {
                "view without a client (again)": lambda i: services.view_record(slug="docs"),
                "repeat, seen by another process": lambda i: services.view_record(
                    slug="docs", client=person(i)
                ),
            }
        )

        from tests.unit.domain.test_bots import BOTS, PEOPLE

        fresh = [f"{agent} {random.random()}" for agent in (BOTS + PEOPLE) * 40]
        started = time.perf_counter()
        for agent in fresh:
            bots.is_bot(agent)
        first = (time.perf_counter() - started) / len(fresh)
        started = time.perf_counter()
        for agent in fresh:
            bots.is_bot(agent)
        again = (time.perf_counter() - started) / len(fresh)
        print(f"is_bot: a new user agent {first * 1e3:.2f} ms, one seen before {again * 1e6:.2f} us")
        history_writer.flush()  # while the store is still there


if __name__ == "__main__":
    main()
