"""Demo pages and polls, written by `manage.py counters_init` (unless --no-demo) for a dashboard to show."""

from __future__ import annotations

from counters.domain.names import DASHBOARD_COUNTER
from counters.domain.values import CounterDefinition, PollDefinition, PollOption
from counters.store.base import CounterStore

DEMO_PAGES = (
    CounterDefinition(
        name=DASHBOARD_COUNTER, kind="views", title="Dashboard", description="The live dashboard itself."
    ),
    CounterDefinition(
        name="welcome",
        kind="views",
        title="Welcome",
        description="A first page to visit: each visit counts once.",
    ),
    CounterDefinition(
        name="pricing",
        kind="views",
        title="Pricing",
        description="A page that carries over 1,000 views counted elsewhere.",
        start=1000,
    ),
    CounterDefinition(
        name="docs", kind="views", title="Documentation", description="How the counters work, in short."
    ),
)

DEMO_POLLS = (
    PollDefinition(
        id="language",
        question="Which language do you reach for first?",
        options=(
            PollOption("python", "Python"),
            PollOption("go", "Go"),
            PollOption("rust", "Rust"),
            PollOption("typescript", "TypeScript"),
        ),
    ),
    PollDefinition(
        id="deploy",
        question="Where do you deploy?",
        options=(
            PollOption("aws", "AWS"),
            PollOption("own-servers", "Our own servers"),
            PollOption("paas", "A platform (PaaS)"),
        ),
    ),
)


def seed_demo(store: CounterStore) -> int:
    """Register the demo pages and polls that are missing; return how many were added."""
    added = sum(store.define_counter(page) for page in DEMO_PAGES)
    added += sum(store.define_poll(poll) for poll in DEMO_POLLS)
    return added
