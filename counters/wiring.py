"""The one place the floors are tied together: the factories of the runtime's parts built from other parts.

Each takes the runtime and hands a part its collaborators (counters/runtime/parts.py names which
factory builds which part). Living at the top, this module may import every floor, so the floors
themselves never reach up for what they are given: the hot settler and the stream reader publish
through the broadcaster without importing live/. Parts built from the settings alone are built by
their own classes.
"""

from __future__ import annotations

from counters import conf
from counters.background.history_writer import HistoryRecorder
from counters.background.hot_settler import Settler
from counters.background.tally_writer import TallyWriter
from counters.live.broadcast import Broadcaster
from counters.live.fanout import LocalFanout
from counters.live.presence import Presence
from counters.live.read_back import ReadBack
from counters.live.snapshots import SnapshotReader
from counters.live.tallies import TallyPush
from counters.runtime import Runtime
from counters.services.site_pages import SitePages
from counters.services.visitors import VisitorBook
from counters.services.votes import read_polls
from counters.streams.worker import StreamWorker, build_reader


def history(process: Runtime) -> HistoryRecorder:
    """Views per bucket, for the runtime's store, with days in the site's time zone."""
    return HistoryRecorder(process.store, zone=process.clock.zone)


def hot_settler(process: Runtime) -> Settler:
    """Exact sums of hot counters, read from the runtime's store and pushed through its broadcaster."""
    return Settler(process.store, publish=process.broadcaster.publish)


def visitors(process: Runtime) -> VisitorBook:
    """Unique visitors, for the runtime's store, counting days in the site's time zone."""
    return VisitorBook(process.store, zone=process.clock.zone)


def day_tallies(process: Runtime) -> TallyWriter:
    """Views per source and page per day, written to the runtime's store."""
    return TallyWriter(process.store)


def site_pages(process: Runtime) -> SitePages:
    """The whole site's pages, created in the runtime's store under the settings' rules."""
    return SitePages.from_settings(process.store)


def broadcaster(process: Runtime) -> Broadcaster:
    """The live push of counter totals, on the runtime's live loop."""
    return Broadcaster(process.live_loop)


def tallies(process: Runtime) -> TallyPush:
    """The push of unique visitors and bot views, on the runtime's live loop."""
    return TallyPush(process.live_loop)


def fanout(process: Runtime) -> LocalFanout:
    """This process's relay of group messages to its sockets, on the runtime's live loop."""
    return LocalFanout(process.live_loop)


def presence(process: Runtime) -> Presence:
    """Viewing-now counts, on the runtime's live loop, fan-out and presence store."""
    return Presence(process.live_loop, fanout=process.fanout, store=process.presence_store)


def snapshots(process: Runtime) -> SnapshotReader:
    """Shared snapshot reads for new sockets, on the runtime's live loop."""
    return SnapshotReader(process.live_loop)


def vote_read_back(process: Runtime) -> ReadBack:
    """The push of the totals votes moved: read after the vote, once per interval for every poll voted on."""
    return ReadBack(process.live_loop, read=read_polls, send=process.broadcaster.send_now)


def stream_reader(process: Runtime) -> StreamWorker:
    """The reader of the runtime store's stream (not started), publishing through its broadcaster."""
    push = process.broadcaster
    reader = build_reader(process.store, publish_updates=push.publish_updates, publish_states=push.publish)
    return StreamWorker(reader, poll_seconds=conf.stream_poll_seconds())
