"""An in-process counter store: the whole contract in dictionaries behind one lock, for fast tests.

It gives the answers and raises the errors the DynamoDB store does (tests/unit/store/test_contract.py
runs both), and keeps nothing across processes or restarts. One lock around every call makes each
call atomic, as each DynamoDB write or transaction is. Shards only spread DynamoDB's write load: a hot
counter here keeps one exact value and remembers its shard count, so that its version grows across a
reset by 1 + shards as it does there (every item's version is bumped).
"""

from __future__ import annotations

from counters import conf
from counters.store.base import CounterStore, StoreHooks
from counters.store.memory.counters import CounterMethods
from counters.store.memory.history import HistoryMethods
from counters.store.memory.poll_resets import PollResetMethods
from counters.store.memory.polls import PollMethods
from counters.store.memory.resets import ResetMethods
from counters.store.memory.site_pages import SitePageMethods
from counters.store.memory.talks import TalkMethods
from counters.store.memory.tallies import TallyMethods
from counters.store.memory.visitors import VisitorMethods
from counters.store.memory.vote_reads import VoteReadMethods
from counters.store.memory.votes import VoteMethods


class MemoryCounterStore(
    CounterMethods,
    ResetMethods,
    HistoryMethods,
    VisitorMethods,
    SitePageMethods,
    TallyMethods,
    PollMethods,
    PollResetMethods,
    TalkMethods,
    VoteMethods,
    VoteReadMethods,
    CounterStore,
):
    """Counters, polls, votes, resets and history of one process, lost when it ends."""

    @classmethod
    def from_settings(cls, *, hooks: StoreHooks = StoreHooks()) -> MemoryCounterStore:  # noqa: B008
        """A fresh, empty store named after the settings' table."""
        return cls(table=conf.table_name())

    def ensure_table(self) -> bool:
        """Nothing to create; say True once, as a new table would."""
        with self._lock:
            created, self._created = not self._created, True
            return created
