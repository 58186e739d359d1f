"""How much load each run makes: full runs for docs/performance.md, quick ones for the tests."""

from __future__ import annotations

from dataclasses import dataclass

CONCURRENCIES = (1, 8, 32)


@dataclass(frozen=True)
class Budget:
    """Requests per measured run and the wall-time cap of each."""

    requests: int
    time_limit: float
    warmup: int
    profile_seconds: float
    fanout_clients: int

    def requests_at(self, concurrency: int) -> int:
        """More requests at higher concurrency so every run lasts long enough to mean something."""
        return self.requests * (1 if concurrency == 1 else 2)


FULL = Budget(requests=1500, time_limit=20.0, warmup=100, profile_seconds=10.0, fanout_clients=1000)
QUICK = Budget(requests=40, time_limit=5.0, warmup=5, profile_seconds=2.0, fanout_clients=20)
