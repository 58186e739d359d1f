"""The single-table schema: key builders, attribute names and table creation."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

logger = logging.getLogger(__name__)

# Attribute names, in one place so expressions and readers cannot drift apart.
PK = "PK"
SK = "SK"
VALUE = "value"
VERSION = "version"
KIND = "kind"
TITLE = "title"
DESCRIPTION = "description"
START = "start"
# On a total item: its `value` holds its `start` (written at definition, or moved by counters_init).
START_APPLIED = "start_applied"
STEP = "step"
UPDATED_AT = "updated_at"
CREATED_AT = "created_at"
EXPIRES_AT = "expires_at"  # the table's TTL attribute
SHARDS = "shards"  # on a sharded counter's total item: how many SHARD#k items it has
EPOCH = "epoch"  # resets of a sharded counter, carried by each of its items
COUNT = "count"  # views counted in a history bucket
BADGE_COUNTS = "badge_counts"  # on a total item: does each fetch of its badge count a view
# A poll's registry item; each entry of its `options` list is a map of an option's id and label.
QUESTION = "question"
OPTIONS = "options"
CLOSED = "closed"
OPTION_ID = "id"
OPTION_LABEL = "label"
# A poll's settings on its registry item (its kind is KIND, its edits' count VERSION); a join code's
# item holds the poll's id in POLL.
CODE = "code"
MAX_PICKS = "max_picks"
RESULTS = "results"
REVEALED = "revealed"
UNLISTED = "unlisted"
CLOSES_AT = "closes_at"
MAX_VOTERS = "max_voters"
AUDIENCE = "audience"
RESETS = "resets"
TOTALS = "totals"  # a poll's audit item: each option's total before the reset or deletion
ACTION = "action"
# A reset's audit item.
ACTOR = "actor"
REASON = "reason"
OLD_VALUE = "old_value"
OLD_VERSION = "old_version"
NEW_VERSION = "new_version"
# A voter's record in a poll, and an idempotency record (which also holds OPTION).
OPTION = "option"
PICKS = "picks"  # a multiple-choice poll's voter record: every option picked (a string set)
VOTERS = "voters"  # a poll's tally item: voters holding a vote
REV = "rev"
VOTER = "voter"
NEW_VOTER = "new_voter"  # an idempotency record: its request minted the voter (its answer set the cookie)
FINGERPRINT = "fingerprint"
POLL = "poll"
# A talk's registry item: its title, its polls in order (each a map of POLL and MINUTES), the poll open now;
# a talk's join code item holds the talk's id in TALK (a poll's holds POLL).
TALK = "talk"
TALK_POLLS = "polls"
MINUTES = "minutes"
CURRENT = "current"
PREVIOUS = "previous"
COUNTED = "counted"
# Views of a view counter from bots, on its total and shard items beside `value`.
BOT_VIEWS = "bot_views"
# A day's salt for the visitors' keyed hashes (binary).
SALT = "salt"
# A watched counter's total item mirrors a number in another table (counters/store/dynamodb/watched.py):
# that table, the item's key (JSON of its DynamoDB key) and the attribute; the last stream change mirrored.
WATCH_TABLE = "watch_table"
WATCH_KEY = "watch_key"
WATCH_ATTRIBUTE = "watch_attribute"
WATCH_SEQUENCE = "watch_sequence"
WATCHED_PK = "WATCHED"
# The stream reader's own items (counters/store/dynamodb/streams/): a lease per stream read, and each
# shard's checkpoint. Their partitions start with STREAM_PK, so the reader knows them in the stream.
STREAM_PK = "STREAM"
LEASE_SK_PREFIX = "LEASE#"
OWNER = "owner"
UNTIL_MS = "until_ms"
LAG_MS = "lag_ms"
SEQUENCE = "sequence"
DONE = "done"

COUNTER_PK_PREFIX = "C#"
HISTORY_PK_PREFIX = "H#"
POLL_PK_PREFIX = "P#"
IDEM_PK_PREFIX = "IDEM#"
TOTAL_SK = "TOTAL"
COUNTER_REGISTRY_PK = "REGISTRY"
POLL_REGISTRY_PK = "POLLS"
TALK_REGISTRY_PK = "TALKS"
JOIN_PK = "JOIN"
SHARD_SK_PREFIX = "SHARD#"
RESET_SK_PREFIX = "RESET#"
VOTER_SK_PREFIX = "VOTER#"
IDEM_SK = "IDEM"
TALLY_SK = "TALLY"
SALT_PK = "SALTS"
SEEN_PK_PREFIX = "SEEN#"
SEEN_SK = "SEEN"
# Sorts after `#<shard>` for any shard, so a bucket's range takes in its shard items.
SHARD_SUFFIX_END = "#~"


def as_int(attribute: dict[str, Any] | None, default: int = 0) -> int:
    """Read a DynamoDB number attribute as an int."""
    return int(attribute["N"]) if attribute else default


def as_str(attribute: dict[str, Any] | None, default: str = "") -> str:
    """Read a DynamoDB string attribute."""
    return attribute["S"] if attribute else default


def as_bool(attribute: dict[str, Any] | None) -> bool:
    """Read a DynamoDB boolean attribute; absent is False."""
    return bool(attribute.get("BOOL", False)) if attribute else False


def optional_str(attribute: dict[str, Any] | None) -> str | None:
    """A string attribute, or None when absent or NULL."""
    return attribute["S"] if attribute and "S" in attribute else None


def counter_pk(name: str) -> str:
    """Partition key of a counter."""
    return f"{COUNTER_PK_PREFIX}{name}"


def total_key(name: str) -> dict[str, Any]:
    """Key of a counter's total item."""
    return {PK: {"S": counter_pk(name)}, SK: {"S": TOTAL_SK}}


def shard_key(name: str, index: int) -> dict[str, Any]:
    """Key of one shard of a hot counter (its partial value and version)."""
    return {PK: {"S": counter_pk(name)}, SK: {"S": f"{SHARD_SK_PREFIX}{index}"}}


def reset_key(name: str, at: str, suffix: str) -> dict[str, Any]:
    """Key of a reset's audit item; the time leads its sort key, so a counter's records sort by time."""
    return {PK: {"S": counter_pk(name)}, SK: {"S": f"{RESET_SK_PREFIX}{at}#{suffix}"}}


def history_pk(name: str) -> str:
    """Partition key of a counter's time buckets, apart from its total so it adds no heat there."""
    return f"{HISTORY_PK_PREFIX}{name}"


def history_key(name: str, bucket: str) -> dict[str, Any]:
    """Key of one time bucket of a counter (`M#<minute>` or `H#<hour>`)."""
    return {PK: {"S": history_pk(name)}, SK: {"S": bucket}}


def day_key(name: str, day: str, shard: int = 0) -> dict[str, Any]:
    """Key of a day's unique-visitor count of a counter (shard k > 0 of a hot counter's: `<day>#k`)."""
    return history_key(name, f"{day}#{shard}" if shard else day)


def bucket_of(sk: str) -> str:
    """The bucket a history item counts toward: its sort key without a `#<shard>` suffix."""
    return sk.rsplit("#", 1)[0] if sk.count("#") > 1 else sk


def name_from_history_pk(item: dict[str, Any]) -> str:
    """The counter name in a history item's `H#<name>` partition key."""
    return item[PK]["S"].removeprefix(HISTORY_PK_PREFIX)


def salt_key(day: str) -> dict[str, Any]:
    """Key of a day's salt; every salt lives in one partition, so the old ones are found by a Query."""
    return {PK: {"S": SALT_PK}, SK: {"S": day}}


def seen_key(name: str, day: str, visitor: str) -> dict[str, Any]:
    """Key of the marker of a visitor seen on a page on a day (the hash leads, spreading the writes)."""
    return {PK: {"S": f"{SEEN_PK_PREFIX}{visitor}#{name}#{day}"}, SK: {"S": SEEN_SK}}


def counter_registry_key(name: str) -> dict[str, Any]:
    """Key of a counter's registry entry."""
    return {PK: {"S": COUNTER_REGISTRY_PK}, SK: {"S": name}}


def poll_registry_key(poll_id: str) -> dict[str, Any]:
    """Key of a poll's registry entry, which holds its question and options."""
    return {PK: {"S": POLL_REGISTRY_PK}, SK: {"S": poll_id}}


def talk_registry_key(talk_id: str) -> dict[str, Any]:
    """Key of a talk's registry entry, which holds its title, its polls in order and the one open now."""
    return {PK: {"S": TALK_REGISTRY_PK}, SK: {"S": talk_id}}


def join_key(code: str) -> dict[str, Any]:
    """Key of a join code's item, which names the poll (or the talk) the code opens."""
    return {PK: {"S": JOIN_PK}, SK: {"S": code}}


def poll_pk(poll_id: str) -> str:
    """Partition key of a poll's voter records."""
    return f"{POLL_PK_PREFIX}{poll_id}"


def voter_key(poll_id: str, voter: str) -> dict[str, Any]:
    """Key of a voter's record in a poll."""
    return {PK: {"S": poll_pk(poll_id)}, SK: {"S": f"{VOTER_SK_PREFIX}{voter}"}}


def poll_audit_key(poll_id: str, at: str, suffix: str) -> dict[str, Any]:
    """Key of a poll's audit item (a reset or the deletion), sorted by time in the poll's partition."""
    return {PK: {"S": poll_pk(poll_id)}, SK: {"S": f"{RESET_SK_PREFIX}{at}#{suffix}"}}


def watched_key(name: str) -> dict[str, Any]:
    """Key of a watched counter's entry in the `WATCHED` partition (what the stream reader lists)."""
    return {PK: {"S": WATCHED_PK}, SK: {"S": name}}


def lease_key(stream_of: str) -> dict[str, Any]:
    """Key of the lease of the stream of table `stream_of` (ours, or a watched one)."""
    return {PK: {"S": STREAM_PK}, SK: {"S": f"{LEASE_SK_PREFIX}{stream_of}"}}


def checkpoints_pk(stream_of: str, stream_label: str) -> str:
    """Partition of one stream's checkpoints (a new stream of the same table gets a new label)."""
    return f"{STREAM_PK}#{stream_of}#{stream_label}"


def checkpoint_key(stream_of: str, stream_label: str, shard: str) -> dict[str, Any]:
    """Key of one shard's checkpoint."""
    return {PK: {"S": checkpoints_pk(stream_of, stream_label)}, SK: {"S": f"{SHARD_SK_PREFIX}{shard}"}}


def is_stream_bookkeeping(key: dict[str, Any]) -> bool:
    """Whether an item's key is of the stream reader's own lease or checkpoints."""
    return key.get(PK, {}).get("S", "").startswith(STREAM_PK)


def tally_key(poll_id: str) -> dict[str, Any]:
    """Key of a poll's count of voters holding a vote (kept where poll_rules.keeps_voter_count says)."""
    return {PK: {"S": poll_pk(poll_id)}, SK: {"S": TALLY_SK}}


def idempotency_key(poll_id: str, key: str) -> dict[str, Any]:
    """Key of an idempotency record, claimed per poll whoever sends it (the record names its voter)."""
    # A poll id has no ':', so these never meet the voter-scoped records of before (`IDEM#anon:...`).
    return {PK: {"S": f"{IDEM_PK_PREFIX}{poll_id}#{key}"}, SK: {"S": IDEM_SK}}


TABLE_DEFINITION: dict[str, Any] = {
    "AttributeDefinitions": [
        {"AttributeName": PK, "AttributeType": "S"},
        {"AttributeName": SK, "AttributeType": "S"},
    ],
    "KeySchema": [
        {"AttributeName": PK, "KeyType": "HASH"},
        {"AttributeName": SK, "KeyType": "RANGE"},
    ],
    "BillingMode": "PAY_PER_REQUEST",
    # Every change of every item, before and after, for the stream reader (store/dynamodb/streams/): it tells
    # another service's `ADD` from the app's own write by whether `version` moved.
    "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
}
STREAM_VIEW = "NEW_AND_OLD_IMAGES"


def ensure_table(client: Any, table: str) -> bool:
    """Create the table (its TTL, its stream) if it is missing; return whether it was created."""
    try:
        found = client.describe_table(TableName=table)["Table"]
    except client.exceptions.ResourceNotFoundException:
        found = None
    if found is not None:
        ensure_stream(client, table, found)
        return False
    # Another process may create it between our describe and create.
    with contextlib.suppress(client.exceptions.ResourceInUseException):
        client.create_table(TableName=table, **TABLE_DEFINITION)
    client.get_waiter("table_exists").wait(TableName=table, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    # A concurrent creator may have enabled TTL already.
    with contextlib.suppress(client.exceptions.ClientError):
        client.update_time_to_live(
            TableName=table, TimeToLiveSpecification={"Enabled": True, "AttributeName": EXPIRES_AT}
        )
    logger.info("Created DynamoDB table %s", table)
    return True


def ensure_stream(client: Any, table: str, description: dict[str, Any]) -> bool:
    """Turn on the stream of a table made without one (NEW_AND_OLD_IMAGES); return whether it did."""
    spec = description.get("StreamSpecification") or {}
    if spec.get("StreamEnabled"):
        if spec.get("StreamViewType") != STREAM_VIEW:
            logger.warning(
                "The stream of table %s shows %s; the stream reader needs %s (docs/streams.md)",
                table,
                spec.get("StreamViewType"),
                STREAM_VIEW,
            )
        return False
    # Another process may be enabling it at the same moment: either way it ends up on.
    with contextlib.suppress(client.exceptions.ResourceInUseException):
        client.update_table(
            TableName=table, StreamSpecification={"StreamEnabled": True, "StreamViewType": STREAM_VIEW}
        )
    client.get_waiter("table_exists").wait(TableName=table, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    logger.info("Turned on the stream of DynamoDB table %s", table)
    return True


def is_hot(item: dict[str, Any]) -> bool:
    """Whether a counter's total item says it is sharded."""
    return as_int(item.get(SHARDS)) > 0
