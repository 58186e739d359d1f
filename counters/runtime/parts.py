"""Every part of a process's runtime: its type, the factory that builds it, what it is built with and from.

Each part is a typed attribute of `Parts` (so `runtime().store` is a `CounterStore` to a reader and a
type checker). Its factory, a callable taking the runtime, is named by its dotted path so that this low
layer never imports the layers whose objects it holds (as Django's CACHES names a cache's BACKEND);
the types are imported for type checkers only. A part built from other parts is wired in
counters/wiring.py; a part built from the settings alone is built by its own class. `needs` names
parts kept per instance of another (the known vote totals belong to one store: a new store starts
knowing nothing); parts a factory takes from the runtime are tied to it as well. `settings` names
the settings that shape a part: changing one drops it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

if TYPE_CHECKING:
    from counters.background.history_writer import HistoryRecorder
    from counters.background.hot_settler import Settler
    from counters.background.tally_writer import TallyWriter
    from counters.domain.clock import Clock
    from counters.live.audience import AudienceView
    from counters.live.broadcast import Broadcaster
    from counters.live.fanout import LocalFanout
    from counters.live.loop import LiveLoop
    from counters.live.presence import Presence
    from counters.live.read_back import ReadBack
    from counters.live.snapshots import SnapshotReader
    from counters.live.socket_limits import SocketLimits
    from counters.live.tallies import TallyPush
    from counters.metrics import Metrics
    from counters.runtime.pools import ThreadPool
    from counters.services.site_pages import SitePages
    from counters.services.visitors import VisitorBook
    from counters.services.vote_gate import VoteGate
    from counters.services.vote_options import KnownOptions
    from counters.services.vote_totals import KnownTotals
    from counters.store.base import CounterStore
    from counters.store.presence import PresenceStore
    from counters.streams.worker import StreamWorker
    from counters.web.http.ratelimit import VoteLimiter

T = TypeVar("T")


class Part(Generic[T]):
    """How to build one part of the runtime; read on a runtime, the part itself (built on first use)."""

    def __init__(self, factory: str, *, needs: tuple[str, ...] = (), settings: Iterable[str] = ()) -> None:
        self.factory = factory
        self.needs = needs
        self.settings = frozenset(settings)
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, process: None, owner: type) -> Part[T]: ...

    @overload
    def __get__(self, process: object, owner: type) -> T: ...

    def __get__(self, process: Any, owner: type) -> Part[T] | T:
        if process is None:
            return self
        return process._get(self.name)

    def __repr__(self) -> str:
        return f"Part({self.name!r}: {self.factory})"


STORE_SETTINGS = frozenset(
    {
        "DYNAMODB_ENDPOINT_URL",
        "AWS_REGION",
        "COUNTERS_TABLE",
        "COUNTERS_DATA_DIR",
        "COUNTERS_STORE_BACKEND",
        "COUNTERS_EMBEDDED_DYNAMODB",
        "COUNTERS_DYNAMODB_CONNECT_TIMEOUT",
        "COUNTERS_DYNAMODB_READ_TIMEOUT",
        "COUNTERS_DYNAMODB_MAX_POOL",
    }
)
SITE_SETTINGS = frozenset(
    {
        "COUNTERS_SITE_INCLUDE",
        "COUNTERS_SITE_EXCLUDE",
        "COUNTERS_SITE_MAX_PAGES",
        "COUNTERS_SITE_MAX_PATH",
        "COUNTERS_SITE_ORIGINS",
        "STATIC_URL",
    }
)
STREAM_SETTINGS = frozenset(
    {"COUNTERS_STREAM_POLL_SECONDS", "COUNTERS_STREAM_LEASE_SECONDS", "COUNTERS_WATCH_POLL_SECONDS"}
)
WIRING = "counters.wiring"


class Parts:
    """The parts a process holds, in the order a reader meets them."""

    # The time now, for what reads "the last hour", and the site's time zone, which decides its days.
    clock: Part[Clock] = Part(
        "counters.domain.clock.Clock.for_runtime", settings={"TIME_ZONE", "COUNTERS_TEST_CLOCK_FILE"}
    )
    # The counter store and what this process keeps per store.
    store: Part[CounterStore] = Part("counters.store.build_store", settings=STORE_SETTINGS)
    history: Part[HistoryRecorder] = Part(f"{WIRING}.history", needs=("store",))
    hot_settler: Part[Settler] = Part(f"{WIRING}.hot_settler", needs=("store",))
    known_totals: Part[KnownTotals] = Part(
        "counters.services.vote_totals.KnownTotals.for_runtime", needs=("store",)
    )
    known_options: Part[KnownOptions] = Part(
        "counters.services.vote_options.KnownOptions.for_runtime", needs=("store",)
    )
    visitors: Part[VisitorBook] = Part(f"{WIRING}.visitors", needs=("store",))
    # Whole-site counting: views per source and page per day, and pages created at their first view.
    day_tallies: Part[TallyWriter] = Part(f"{WIRING}.day_tallies", needs=("store",))
    site_pages: Part[SitePages] = Part(f"{WIRING}.site_pages", needs=("store",), settings=SITE_SETTINGS)
    vote_gate: Part[VoteGate] = Part(
        "counters.services.vote_gate.VoteGate.from_settings",
        settings={"COUNTERS_VOTE_CONCURRENCY", "COUNTERS_VOTE_QUEUE_SECONDS"},
    )
    vote_limiter: Part[VoteLimiter] = Part(
        "counters.web.http.ratelimit.VoteLimiter.from_settings",
        settings={"CACHES", "COUNTERS_VOTE_RATE", "COUNTERS_VOTER_RATE"},
    )
    # Viewing-now counts per worker: Redis when the channel layer is channels_redis.
    presence_store: Part[PresenceStore] = Part(
        "counters.store.presence.build_presence_store", settings={"CHANNEL_LAYERS"}
    )
    # The live push: the server's loop, and everything that runs on it.
    live_loop: Part[LiveLoop] = Part("counters.live.loop.LiveLoop.for_runtime")
    broadcaster: Part[Broadcaster] = Part(f"{WIRING}.broadcaster")
    # The day's unique visitors and the bot views, pushed as they rise (they carry no version).
    tallies: Part[TallyPush] = Part(f"{WIRING}.tallies")
    # A new channel layer needs a new relay (and viewing now, built with the fan-out, follows).
    fanout: Part[LocalFanout] = Part(f"{WIRING}.fanout", settings={"CHANNEL_LAYERS"})
    presence: Part[Presence] = Part(f"{WIRING}.presence")
    snapshots: Part[SnapshotReader] = Part(f"{WIRING}.snapshots")
    # Which poll totals audience sockets may receive (hidden results never reach them).
    audience: Part[AudienceView] = Part("counters.live.audience.AudienceView.for_runtime")
    socket_limits: Part[SocketLimits] = Part(
        "counters.live.socket_limits.SocketLimits.from_settings",
        settings={"COUNTERS_SOCKETS_PER_ADDRESS", "COUNTERS_SOCKETS_PER_VOTER"},
    )
    vote_read_back: Part[ReadBack] = Part(f"{WIRING}.vote_read_back")
    # Prometheus instruments (counters/metrics.py): kept for the process's life, whatever store it uses.
    metrics: Part[Metrics] = Part("counters.metrics.Metrics.for_runtime")
    # The table's stream, read in this process while it holds the lease (counters/streams/).
    stream_reader: Part[StreamWorker] = Part(
        f"{WIRING}.stream_reader", needs=("store",), settings=STREAM_SETTINGS
    )
    # The ASGI edge's threads for blocking work: Django's requests, and the site beacon's store calls;
    # as many as the store has connections (the store call is what such a thread waits on).
    request_threads: Part[ThreadPool] = Part(
        "counters.runtime.pools.request_threads", settings={"COUNTERS_DYNAMODB_MAX_POOL"}
    )
    beacon_threads: Part[ThreadPool] = Part(
        "counters.runtime.pools.beacon_threads", settings={"COUNTERS_DYNAMODB_MAX_POOL"}
    )


def parts_of(kind: type) -> dict[str, Part[Any]]:
    """The parts a runtime class declares (its own and those it inherits), by name."""
    found: dict[str, Part[Any]] = {}
    for klass in reversed(kind.__mro__):
        found.update({name: value for name, value in vars(klass).items() if isinstance(value, Part)})
    return found
