"""Every part of a process's runtime: the factory that builds it, what it is built with, what shapes it.

A factory is a callable taking the runtime, named by its dotted path so that this low layer never
imports the layers whose objects it holds (as Django's CACHES names a cache's BACKEND). `needs` names
parts kept per instance of another (the known vote totals belong to one store: a new store starts
knowing nothing); parts a factory asks the runtime for are tied to it as well.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Part:
    """How to build one part of the runtime."""

    factory: str
    needs: tuple[str, ...] = ()
    settings: frozenset[str] = frozenset()


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

PARTS: dict[str, Part] = {
    # The time now, for what reads "the last hour", and the site's time zone, which decides its days.
    "clock": Part("counters.domain.clock.Clock.for_runtime", settings=frozenset({"TIME_ZONE"})),
    # The counter store and what this process keeps per store.
    "store": Part("counters.store.build_store", settings=STORE_SETTINGS),
    "history": Part("counters.background.history_writer.build_history_recorder", needs=("store",)),
    "hot_settler": Part("counters.background.hot_settler.build_settler", needs=("store",)),
    "known_totals": Part("counters.services.vote_totals.KnownTotals.for_runtime", needs=("store",)),
    "known_options": Part("counters.services.vote_options.KnownOptions.for_runtime", needs=("store",)),
    "visitors": Part("counters.services.visitors.VisitorBook.for_runtime", needs=("store",)),
    # Whole-site counting: views per source and page per day, and pages created at their first view.
    "day_tallies": Part("counters.background.tally_writer.TallyWriter.for_runtime", needs=("store",)),
    "site_pages": Part(
        "counters.services.site_pages.SitePages.for_runtime",
        needs=("store",),
        settings=frozenset(
            {
                "COUNTERS_SITE_INCLUDE",
                "COUNTERS_SITE_EXCLUDE",
                "COUNTERS_SITE_MAX_PAGES",
                "COUNTERS_SITE_MAX_PATH",
                "COUNTERS_SITE_ORIGINS",
                "STATIC_URL",
            }
        ),
    ),
    "vote_gate": Part(
        "counters.services.vote_gate.VoteGate.from_settings",
        settings=frozenset({"COUNTERS_VOTE_CONCURRENCY", "COUNTERS_VOTE_QUEUE_SECONDS"}),
    ),
    "vote_limiter": Part(
        "counters.web.http.ratelimit.VoteLimiter.from_settings",
        settings=frozenset({"CACHES", "COUNTERS_VOTE_RATE", "COUNTERS_VOTER_RATE"}),
    ),
    # Viewing-now counts per worker: Redis when the channel layer is channels_redis.
    "presence_store": Part(
        "counters.store.presence.build_presence_store", settings=frozenset({"CHANNEL_LAYERS"})
    ),
    # The live push: the server's loop, and everything that runs on it.
    "live_loop": Part("counters.live.loop.LiveLoop.for_runtime"),
    "broadcaster": Part("counters.live.broadcast.Broadcaster.for_runtime"),
    # The day's unique visitors and the bot views, pushed as they rise (they carry no version).
    "tallies": Part("counters.live.tallies.TallyPush.for_runtime"),
    # A new channel layer needs a new relay (and viewing now, built with the fan-out, follows).
    "fanout": Part("counters.live.fanout.LocalFanout.for_runtime", settings=frozenset({"CHANNEL_LAYERS"})),
    "presence": Part("counters.live.presence.Presence.for_runtime"),
    "snapshots": Part("counters.live.snapshots.SnapshotReader.for_runtime"),
    # Which poll totals audience sockets may receive (hidden results never reach them).
    "audience": Part("counters.live.audience.AudienceView.for_runtime"),
    "socket_limits": Part(
        "counters.live.socket_limits.SocketLimits.from_settings",
        settings=frozenset({"COUNTERS_SOCKETS_PER_ADDRESS", "COUNTERS_SOCKETS_PER_VOTER"}),
    ),
    "vote_read_back": Part("counters.services.votes.build_vote_read_back"),
    # Prometheus instruments (counters/metrics.py): kept for the process's life, whatever store it uses.
    "metrics": Part("counters.metrics.Metrics.for_runtime"),
    # The table's stream, read in this process while it holds the lease (counters/streams/).
    "stream_reader": Part(
        "counters.streams.worker.StreamWorker.for_runtime",
        needs=("store",),
        settings=frozenset(
            {"COUNTERS_STREAM_POLL_SECONDS", "COUNTERS_STREAM_LEASE_SECONDS", "COUNTERS_WATCH_POLL_SECONDS"}
        ),
    ),
}
