"""Tallies per day in DynamoDB: views per source and per page, one item per (group, day, key).

Items `PK=T#<group>`, `SK=<day>#<key>`, attributes `count` and `expires_at`. A write is one ADD, sent
once (a resent ADD whose answer was lost would count twice); a day of a group reads back with one
Query of a sort key range. Writes come batched per process (counters/background/tally_writer.py).
"""

from __future__ import annotations

from counters.store.dynamodb import schema
from counters.store.dynamodb.expressions import named, typed
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.table import Table

ADD_TO_TALLY = "ADD #count :count SET #expires = :expires"
TALLY_PK_PREFIX = "T#"
# `<day>#<key>`: every key of a day sorts after `<day>#` and before `<day>$` ('$' follows '#').
DAY_END = "$"


def tally_key(group: str, day: str, key: str) -> dict:
    """The item of one key of one day's tally of a group."""
    return {schema.PK: {"S": TALLY_PK_PREFIX + group}, schema.SK: {"S": f"{day}#{key}"}}


def add_to_tally(table: Table, group: str, day: str, key: str, count: int, *, expires_at: int) -> None:
    """One ADD, sent once."""
    table.update_item(
        tally_key(group, day, key),
        update=ADD_TO_TALLY,
        names=named(count=schema.COUNT, expires=schema.EXPIRES_AT),
        values=typed(count=count, expires=expires_at),
        send_once=True,
    )


def read_tally(table: Table, group: str, *, first_day: str, last_day: str) -> dict[tuple[str, str], int]:
    """One eventually consistent Query of the days' items, as counts per (day, key)."""
    found = table.query_all(
        TALLY_PK_PREFIX + group, sk_range=(f"{first_day}#", last_day + DAY_END), consistent=False
    )
    counts: dict[tuple[str, str], int] = {}
    for item in found:
        # Keys hold no '#' (domains, `utm:` labels and page names cannot), so the last one splits.
        day, key = item[schema.SK]["S"].rsplit("#", 1)
        if count := as_int(item.get(schema.COUNT)):
            counts[(day, key)] = count
    return counts
