"""How much load each run makes: full runs for docs/performance.md, quick ones for the tests."""

from __future__ import annotations

from dataclasses import dataclass

CONCURRENCIES = (1, 8, 32)


@dataclass(frozen=True)
class Budget:
    """Requests per measured run and the wall-time cap of each."""

    requests: int
    time_limit: float
    # The cap on the cost's interleaved samples, one request at a time, so they all fit under load too.
    sample_time_limit: float
    warmup: int
    profile_seconds: float
    fanout_clients: int

    def requests_at(self, concurrency: int) -> int:
        """More requests at higher concurrency so every run lasts long enough to mean something."""
        return self.requests * (1 if concurrency == 1 else 2)


FULL = Budget(
    requests=1500,
    time_limit=20.0,
    sample_time_limit=40.0,
    warmup=100,
    profile_seconds=10.0,
    fanout_clients=1000,
)
# Quick runs end at their requests or after 2 s: on a loaded machine the cap ends them, and every thread
# has sent at least one request by then, so each row still counts what it measured.
QUICK = Budget(
    requests=40, time_limit=2.0, sample_time_limit=10.0, warmup=5, profile_seconds=2.0, fanout_clients=20
)
