"""What a vote reads in DynamoDB: voter records, the poll's resets and voter tallies, idempotency records."""

from __future__ import annotations

import time

from counters.domain import refusals
from counters.domain.values import IdempotencyClaim, StoredReply, VoterRecord
from counters.exceptions import IdempotencyRace, UnknownCounter
from counters.store.dynamodb import items, schema
from counters.store.dynamodb.schema import as_int, optional_str
from counters.store.dynamodb.table import Table
from counters.store.dynamodb.vote_memory import VoteBasis


def voter_record(table: Table, poll_id: str, voter: str) -> VoterRecord:
    """A voter's choice in a poll, strongly consistent."""
    return items.voter_record_from_item(table.get_item(schema.voter_key(poll_id, voter)))


def voter_choices(table: Table, voter: str, poll_ids: list[str]) -> dict[str, str]:
    """A voter's choice in each of several polls (polls without a vote, or reset since, are left out)."""
    unique = list(dict.fromkeys(poll_ids))
    keys = [schema.voter_key(poll_id, voter) for poll_id in unique]
    keys += [schema.poll_registry_key(poll_id) for poll_id in unique]
    found = table.batch_get(keys)
    resets = {
        item[schema.SK]["S"]: as_int(item.get(schema.RESETS)) for item in found if items.is_poll_item(item)
    }
    choices: dict[str, str] = {}
    for item in found:
        if items.is_poll_item(item) or not (option := optional_str(item.get(schema.OPTION))):
            continue
        poll_id = items.poll_id_from_voter_item(item)
        if as_int(item.get(schema.EPOCH)) == resets.get(poll_id, 0):
            choices[poll_id] = option
    return choices


def voter_picks(table: Table, voter: str, poll_id: str) -> frozenset[str]:
    """The options a voter holds in a poll (none if the record is from before the poll's last reset)."""
    found = table.batch_get([schema.poll_registry_key(poll_id), schema.voter_key(poll_id, voter)])
    poll = next((items.poll_from_item(item) for item in found if items.is_poll_item(item)), None)
    record = next((item for item in found if not items.is_poll_item(item)), None)
    if poll is None or record is None:
        return frozenset()
    held = items.voter_record_from_item(record).in_poll(poll)
    return held.picks or frozenset(filter(None, [held.option]))


def poll_voters(table: Table, poll_id: str) -> dict[str, str]:
    """Every voter holding a vote in a poll, with their option (one Query of the poll's partition)."""
    resets = get_resets(table, poll_id)
    voters = {}
    for item in table.query_all(schema.poll_pk(poll_id)):
        option = optional_str(item.get(schema.OPTION))
        if items.is_voter_item(item) and option and as_int(item.get(schema.EPOCH)) == resets:
            voters[items.voter_from_item(item)] = option
    return voters


def get_resets(table: Table, poll_id: str) -> int:
    """How many times a poll's votes were reset (0 for an unknown poll)."""
    item = table.get_item(schema.poll_registry_key(poll_id))
    return as_int(item.get(schema.RESETS)) if item else 0


def stored_reply(table: Table, poll_id: str, key: str, *, now: int | None = None) -> StoredReply | None:
    """The live idempotency record of a key in a poll, or None (expired records count as gone)."""
    item = table.get_item(schema.idempotency_key(poll_id, key))
    if not items.is_live(item, now or int(time.time())):
        return None
    return items.reply_from_item(item)


def vote_reads(table: Table, poll_id: str, voter: str, claim: IdempotencyClaim | None) -> VoteBasis:
    """Poll, voter record and (with a key) idempotency record in one consistent BatchGetItem."""
    keys = [schema.poll_registry_key(poll_id), schema.voter_key(poll_id, voter)]
    if claim is not None:
        keys.append(schema.idempotency_key(poll_id, claim.key))
    found = {item[schema.PK]["S"]: item for item in table.batch_get(keys)}
    if schema.POLL_REGISTRY_PK not in found:
        raise UnknownCounter(refusals.no_poll(poll_id))
    poll = items.poll_from_item(found[schema.POLL_REGISTRY_PK])
    idem = found.get(schema.idempotency_key(poll_id, claim.key)[schema.PK]["S"]) if claim else None
    if idem is not None and items.is_live(idem, int(time.time())):
        # The key was used already: the caller answers from its record, read here already.
        raise IdempotencyRace(items.reply_from_item(idem), poll)
    return VoteBasis(poll, items.voter_record_from_item(found.get(schema.poll_pk(poll_id))))


def voter_counts(table: Table, poll_ids: list[str]) -> dict[str, int]:
    """Voters holding a vote in each poll that keeps a tally (one BatchGetItem)."""
    keys = [schema.tally_key(poll_id) for poll_id in dict.fromkeys(poll_ids)]
    return (
        {
            items.poll_id_from_voter_item(item): max(0, as_int(item.get(schema.VOTERS)))
            for item in table.batch_get(keys)
        }
        if keys
        else {}
    )
