"""Unique visitors in DynamoDB: the daily salt, seen-markers, and the count of each page's day.

Items (see docs/design.md):
- salt `PK=SALTS`, `SK=D#<day>`: `salt` (32 random bytes), `expires_at`. Created with
  `if_not_exists`, so of processes starting a day at once all end up with the one that was stored
  first; deleted when the next day's is first used (its TTL is only a backstop).
- marker `PK=SEEN#<visitor>#<page>#<day>`, `SK=SEEN`: `expires_at` (the day's end and an hour). Only
  the keyed hash: no address, no user agent.
- count `PK=H#<page>`, `SK=D#<day>` (beside the page's minute and hour history): `count`,
  `expires_at` (90 days). A hot counter's first visits spread over `D#<day>#k`, one per shard; the
  site's (`H#_site`) always do, over SITE_SHARDS.

A first visit is ONE TransactWriteItems: Put the marker if absent, and ADD 1 to the day's count.
Both happen or neither, so a crash or a lost answer can never leave a marked visitor uncounted, and
the marker's condition makes the pair happen once per visitor, page and day: two first views at the
same instant count one (the other is cancelled on the condition, or as a conflict and then tried
again until it meets the condition). A resend is harmless either way: the SDK's resends carry the
same ClientRequestToken (a no-op if it committed), and any later attempt meets the marker.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable

from counters.domain.names import SITE_VISITORS
from counters.domain.visitors import VisitDay
from counters.exceptions import StoreUnavailable
from counters.store.dynamodb import items, schema
from counters.store.dynamodb.expressions import named, typed
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.shard_view import ShardView
from counters.store.dynamodb.table import CONDITION_FAILED, TRANSACTION_CONFLICT, Table, TransactionCancelled

# Other first visits of the page may hold the day's count item in a transaction: take ours again, with
# jitter, as votes do.
VISIT_ATTEMPTS = 8
# Every person's first view of the day meets on the site's count: it is always spread over this many
# items (`D#<day>`, `D#<day>#1` ... `#7`), as a hot page's is, so first visits rarely wait on each other.
SITE_SHARDS = 8
BACKOFF_SECONDS = 0.01

KEEP_SALT = "SET #salt = if_not_exists(#salt, :candidate), #expires = :expires"
ADD_VISITOR = "ADD #count :one SET #expires = :expires"


def daily_salt(table: Table, day: VisitDay, candidate: bytes) -> bytes:
    """The day's salt: the stored one, or `candidate` stored now, in one idempotent UpdateItem."""
    attributes = table.update_item(
        schema.salt_key(day.key),
        update=KEEP_SALT,
        names=named(salt=schema.SALT, expires=schema.EXPIRES_AT),
        values=typed(candidate=candidate, expires=day.marker_expires_at),
        returns="ALL_NEW",
        write=False,
    )
    return bytes(attributes[schema.SALT]["B"])


def drop_salts(table: Table, before: VisitDay) -> int:
    """Delete the salt of every day before `before` (one Query of the salts' partition, then deletes)."""
    old = [item for item in table.query_all(schema.SALT_PK) if item[schema.SK]["S"] < before.key]
    for item in old:
        table.delete_item({schema.PK: item[schema.PK], schema.SK: item[schema.SK]})
    return len(old)


def shards_of(view: ShardView, name: str) -> int:
    """Over how many items the day's count of `name` is spread (0: one item)."""
    return SITE_SHARDS if name == SITE_VISITORS else view.shard_count(name)


def record_visitor(table: Table, view: ShardView, name: str, visitor: str, *, day: VisitDay) -> bool:
    """Put the visitor's marker if absent and add one to the day's count, in one transaction."""
    marker = table.put_new_entry(items.seen_item(name, day.key, visitor, expires_at=day.marker_expires_at))
    shards = shards_of(view, name)
    for attempt in range(VISIT_ATTEMPTS):
        count = table.update_entry(
            schema.day_key(name, day.key, random.randrange(shards) if shards else 0),
            update=ADD_VISITOR,
            condition=None,
            names=named(count=schema.COUNT, expires=schema.EXPIRES_AT),
            values=typed(one=1, expires=day.count_expires_at),
        )
        try:
            table.transact([marker, count])
            return True
        except TransactionCancelled as exc:
            if exc.codes and exc.codes[0] == CONDITION_FAILED:
                return False  # seen already: by an earlier view, or by the one it raced with
            if TRANSACTION_CONFLICT not in exc.codes:
                raise StoreUnavailable("The counter store refused the visitor's count; try again.") from exc
        time.sleep(random.uniform(0, BACKOFF_SECONDS * 2**attempt))
    raise StoreUnavailable("Too many first visits of this page at once; the visitor was not counted yet.")


def visitors_on(table: Table, view: ShardView, names: Iterable[str], *, day: VisitDay) -> dict[str, int]:
    """Each counter's count on `day`: one BatchGetItem, and a Query per hot counter (its shard items)."""
    names = list(dict.fromkeys(names))
    hot = [name for name in names if shards_of(view, name)]
    found = {
        schema.name_from_history_pk(item): as_int(item.get(schema.COUNT))
        for item in table.batch_get([schema.day_key(name, day.key) for name in names if name not in hot])
    }
    for name in hot:
        parts = table.query_all(
            schema.history_pk(name), sk_range=(day.key, day.key + schema.SHARD_SUFFIX_END)
        )
        found[name] = sum(as_int(item.get(schema.COUNT)) for item in parts)
    return {name: count for name, count in found.items() if count}
