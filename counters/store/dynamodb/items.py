"""Every item the store writes, built from domain values, and every item it reads, parsed back into them."""

from __future__ import annotations

import dataclasses
from typing import Any

from counters.domain import values
from counters.domain.shards import validate_shards
from counters.store.dynamodb import schema
from counters.store.dynamodb.schema import as_bool, as_int, as_str, optional_str

# ---- counters ----


def item_value(item: dict[str, Any]) -> int:
    """An item's part of the total: its value (shards start at 0).

    A total item defined before the start lived in `value` has none until its first write or
    counters_init: it shows its `start` then, which no write has added yet.
    """
    return as_int(item.get(schema.VALUE), as_int(item.get(schema.START)))


def state_from_item(name: str, item: dict[str, Any]) -> values.CounterState:
    """Build a values.CounterState from a total item (its value already holds its start)."""
    return values.CounterState(
        name=name,
        kind=as_str(item.get(schema.KIND)),
        value=item_value(item),
        version=as_int(item.get(schema.VERSION)),
        title=as_str(item.get(schema.TITLE)),
        description=as_str(item.get(schema.DESCRIPTION)),
        updated_at=as_str(item.get(schema.UPDATED_AT)) or None,
        bot_views=as_int(item.get(schema.BOT_VIEWS)),
        badge_counts=as_bool(item.get(schema.BADGE_COUNTS)),
    )


def state_from_increment(name: str, kind: str, attributes: dict[str, Any]) -> values.CounterState:
    """Build a values.CounterState from the attributes an increment returned (UPDATED_NEW)."""
    return values.CounterState(
        name=name,
        kind=kind,
        value=as_int(attributes.get(schema.VALUE)),
        version=as_int(attributes.get(schema.VERSION)),
        updated_at=as_str(attributes.get(schema.UPDATED_AT)) or None,
        bot_views=as_int(attributes.get(schema.BOT_VIEWS)),
    )


def summed_state(name: str, items: list[dict[str, Any]]) -> values.CounterState:
    """A counter's state summed over its TOTAL and SHARD#k items (which must include TOTAL)."""
    total = next(item for item in items if item[schema.SK]["S"] == schema.TOTAL_SK)
    return dataclasses.replace(
        state_from_item(name, total),
        value=sum(item_value(item) for item in items),
        version=sum(as_int(item.get(schema.VERSION)) for item in items),
        bot_views=sum(as_int(item.get(schema.BOT_VIEWS)) for item in items),
    )


def name_from_counter_pk(item: dict[str, Any]) -> str:
    """The counter name in an item's `C#<name>` partition key."""
    return item[schema.PK]["S"].removeprefix(schema.COUNTER_PK_PREFIX)


def shard_item(name: str, index: int, *, kind: str, step: dict[str, Any], epoch: int, now: str) -> dict:
    """A new, empty shard: what a plain increment's condition and expression need, with start 0."""
    return {
        **schema.shard_key(name, index),
        schema.KIND: {"S": kind},
        schema.START: {"N": "0"},
        schema.STEP: step,
        schema.VERSION: {"N": "0"},
        schema.EPOCH: {"N": str(epoch)},
        schema.CREATED_AT: {"S": now},
    }


def declared_hot_items(definition: values.CounterDefinition, now: str) -> tuple[dict[str, Any], list[dict]]:
    """For a counter declared hot: the extra attributes of its total item, and its shard items."""
    if not definition.shards:
        return {}, []
    shards = validate_shards(definition.shards)
    step = {"N": str(definition.step)}
    items = [
        shard_item(definition.name, k, kind=definition.kind, step=step, epoch=0, now=now)
        for k in range(shards)
    ]
    return {schema.SHARDS: {"N": str(shards)}, schema.EPOCH: {"N": "0"}}, items


def counter_items(definition: values.CounterDefinition, now: str) -> list[dict[str, Any]]:
    """A new counter's items: its total first, then its registry entry and any shards."""
    total = {
        **schema.total_key(definition.name),
        schema.KIND: {"S": definition.kind},
        schema.TITLE: {"S": definition.title},
        schema.DESCRIPTION: {"S": definition.description},
        # The start is part of the stored total from the first moment, so another writer's `ADD value :n`
        # builds on it like the app's own writes; `start` stays as the record of where it began.
        schema.VALUE: {"N": str(definition.start)},
        schema.START: {"N": str(definition.start)},
        schema.START_APPLIED: {"BOOL": True},
        schema.STEP: {"N": str(definition.step)},
        schema.VERSION: {"N": "0"},
        schema.BADGE_COUNTS: {"BOOL": definition.badge_counts},
        schema.CREATED_AT: {"S": now},
    }
    hot_attributes, shard_items = declared_hot_items(definition, now)
    total.update(hot_attributes)
    registry = {
        **schema.counter_registry_key(definition.name),
        schema.KIND: {"S": definition.kind},
        schema.CREATED_AT: {"S": now},
    }
    return [total, registry, *shard_items]


# ---- unique visitors ----


def seen_item(name: str, day: str, visitor: str, *, expires_at: int) -> dict[str, Any]:
    """The marker of a visitor seen on a page on a day: the keyed hash, nothing else about them."""
    return {**schema.seen_key(name, day, visitor), schema.EXPIRES_AT: {"N": str(expires_at)}}


# ---- resets ----


def audit_attributes(*, actor: str, reason: str, old_version: int, at: str) -> dict[str, Any]:
    """What every audit item holds: who made the change, why, when, and the version it replaced."""
    return {
        schema.ACTOR: {"S": actor},
        schema.REASON: {"S": reason},
        schema.OLD_VERSION: {"N": str(old_version)},
        schema.CREATED_AT: {"S": at},
    }


def audit_fields(item: dict[str, Any]) -> dict[str, Any]:
    """The who, why, when and replaced version of an audit item, as the record's keyword arguments."""
    return {
        "at": as_str(item.get(schema.CREATED_AT)),
        "actor": as_str(item.get(schema.ACTOR)),
        "reason": as_str(item.get(schema.REASON)),
        "old_version": as_int(item.get(schema.OLD_VERSION)),
    }


def reset_audit_item(
    current: values.CounterState, *, new_version: int, actor: str, reason: str, at: str, suffix: str
) -> dict[str, Any]:
    """The audit item of a reset of `current` (the state it replaced) to 0 at `new_version`."""
    return {
        **schema.reset_key(current.name, at, suffix),
        **audit_attributes(actor=actor, reason=reason, old_version=current.version, at=at),
        schema.OLD_VALUE: {"N": str(current.value)},
        schema.NEW_VERSION: {"N": str(new_version)},
    }


def record_from_item(name: str, item: dict[str, Any]) -> values.ResetRecord:
    """Build a values.ResetRecord from an audit item."""
    return values.ResetRecord(
        name=name,
        **audit_fields(item),
        old_value=as_int(item.get(schema.OLD_VALUE)),
        new_version=as_int(item.get(schema.NEW_VERSION)),
    )


# ---- polls ----


def option_item(option: values.PollOption) -> dict[str, Any]:
    """One option as stored in its poll's `options` list."""
    return {"M": {schema.OPTION_ID: {"S": option.id}, schema.OPTION_LABEL: {"S": option.label}}}


def poll_item(poll: values.PollDefinition, now: str) -> dict[str, Any]:
    """A poll's registry item, holding its question, options, closed flag and settings."""
    item = {
        **schema.poll_registry_key(poll.id),
        schema.QUESTION: {"S": poll.question},
        schema.OPTIONS: {"L": [option_item(option) for option in poll.options]},
        schema.CLOSED: {"BOOL": poll.closed},
        schema.CODE: {"S": poll.code},
        schema.KIND: {"S": poll.kind},
        schema.MAX_PICKS: {"N": str(poll.max_picks)},
        schema.RESULTS: {"S": poll.results},
        schema.REVEALED: {"BOOL": poll.revealed},
        schema.AUDIENCE: {"S": poll.audience},
        schema.VERSION: {"N": str(poll.version)},
        schema.RESETS: {"N": str(poll.resets)},
        schema.CREATED_AT: {"S": now},
    }
    if poll.closes_at is not None:
        item[schema.CLOSES_AT] = {"S": poll.closes_at}
    if poll.max_voters is not None:
        item[schema.MAX_VOTERS] = {"N": str(poll.max_voters)}
    if poll.unlisted:
        item[schema.UNLISTED] = {"BOOL": True}
    return item


def join_item(poll: values.PollDefinition, now: str) -> dict[str, Any]:
    """A join code's item: the code leads to the poll's id."""
    return {**schema.join_key(poll.code), schema.POLL: {"S": poll.id}, schema.CREATED_AT: {"S": now}}


def poll_from_item(item: dict[str, Any]) -> values.PollDefinition:
    """Build a values.PollDefinition from its registry item (a poll from before its settings: defaults)."""
    options = tuple(
        values.PollOption(id=entry["M"][schema.OPTION_ID]["S"], label=entry["M"][schema.OPTION_LABEL]["S"])
        for entry in item.get(schema.OPTIONS, {}).get("L", [])
    )
    max_voters = item.get(schema.MAX_VOTERS)
    return values.PollDefinition(
        id=item[schema.SK]["S"],
        question=as_str(item.get(schema.QUESTION)),
        options=options,
        closed=as_bool(item.get(schema.CLOSED)),
        code=as_str(item.get(schema.CODE)),
        kind=as_str(item.get(schema.KIND), "single"),
        max_picks=as_int(item.get(schema.MAX_PICKS), 1),
        results=as_str(item.get(schema.RESULTS), "always"),
        revealed=as_bool(item.get(schema.REVEALED)),
        closes_at=optional_str(item.get(schema.CLOSES_AT)),
        max_voters=as_int(max_voters) if max_voters else None,
        audience=as_str(item.get(schema.AUDIENCE), "anyone"),
        unlisted=as_bool(item.get(schema.UNLISTED)),
        version=as_int(item.get(schema.VERSION)),
        resets=as_int(item.get(schema.RESETS)),
    )


# ---- talks ----


def talk_polls_attribute(talk: values.Talk) -> dict[str, Any]:
    """A talk's polls as stored: a list of maps, in the talk's order."""
    entries = []
    for entry in talk.polls:
        fields: dict[str, Any] = {schema.POLL: {"S": entry.poll}}
        if entry.minutes is not None:
            fields[schema.MINUTES] = {"N": str(entry.minutes)}
        entries.append({"M": fields})
    return {"L": entries}


def talk_item(talk: values.Talk, now: str) -> dict[str, Any]:
    """A talk's registry item."""
    return {
        **schema.talk_registry_key(talk.id),
        schema.TITLE: {"S": talk.title},
        schema.TALK_POLLS: talk_polls_attribute(talk),
        schema.CODE: {"S": talk.code},
        schema.CURRENT: {"S": talk.current},
        schema.VERSION: {"N": str(talk.version)},
        schema.CREATED_AT: {"S": now},
        schema.UPDATED_AT: {"S": now},
    }


def talk_join_item(talk: values.Talk, now: str) -> dict[str, Any]:
    """A talk's join code item: the code leads to the talk's id."""
    return {**schema.join_key(talk.code), schema.TALK: {"S": talk.id}, schema.CREATED_AT: {"S": now}}


def talk_from_item(item: dict[str, Any]) -> values.Talk:
    """Build a values.Talk from its registry item."""
    polls = tuple(
        values.TalkPoll(
            poll=entry["M"][schema.POLL]["S"],
            minutes=as_int(entry["M"][schema.MINUTES]) if schema.MINUTES in entry["M"] else None,
        )
        for entry in item.get(schema.TALK_POLLS, {}).get("L", [])
    )
    return values.Talk(
        id=item[schema.SK]["S"],
        title=as_str(item.get(schema.TITLE)),
        polls=polls,
        code=as_str(item.get(schema.CODE)),
        current=as_str(item.get(schema.CURRENT)),
        version=as_int(item.get(schema.VERSION)),
    )


# ---- votes ----


def voter_item(change: values.VoteChange, *, rev: int, now: str) -> dict[str, Any]:
    """A voter's record after `change`, at revision `rev` (no option once retracted)."""
    item = {
        **schema.voter_key(change.poll.id, change.voter),
        schema.VOTER: {"S": change.voter},
        schema.REV: {"N": str(rev)},
        schema.EPOCH: {"N": str(change.poll.resets)},
        schema.UPDATED_AT: {"S": now},
    }
    if change.record_option:
        item[schema.OPTION] = {"S": change.record_option}
    if change.picks:
        item[schema.PICKS] = {"SS": sorted(change.picks)}
    return item


def voter_record_from_item(item: dict[str, Any] | None) -> values.VoterRecord:
    """Build a values.VoterRecord from a voter's record; no record is no vote, at revision 0."""
    if not item:
        return values.VoterRecord(option=None, rev=0)
    return values.VoterRecord(
        option=optional_str(item.get(schema.OPTION)),
        rev=as_int(item.get(schema.REV)),
        picks=frozenset(item.get(schema.PICKS, {}).get("SS", [])),
        epoch=as_int(item.get(schema.EPOCH)),
    )


def voter_from_item(item: dict[str, Any]) -> str:
    """The voter of a voter record, from its `VOTER#<voter>` sort key."""
    return item[schema.SK]["S"].removeprefix(schema.VOTER_SK_PREFIX)


def poll_id_from_voter_item(item: dict[str, Any]) -> str:
    """The poll of a voter record, from its `P#<poll>` partition key."""
    return item[schema.PK]["S"].removeprefix(schema.POLL_PK_PREFIX)


def is_poll_item(item: dict[str, Any]) -> bool:
    """Whether an item is a poll's registry item."""
    return item[schema.PK]["S"] == schema.POLL_REGISTRY_PK


def is_voter_item(item: dict[str, Any]) -> bool:
    """Whether an item of a poll's partition is a voter record."""
    return item[schema.SK]["S"].startswith(schema.VOTER_SK_PREFIX)


def idempotency_item(change: values.VoteChange, claim: values.IdempotencyClaim, now: str) -> dict[str, Any]:
    """The idempotency record of a vote: the request's fingerprint, its voter and the change it made."""
    item: dict[str, Any] = {
        **schema.idempotency_key(change.poll.id, claim.key),
        schema.FINGERPRINT: {"S": claim.fingerprint},
        schema.POLL: {"S": change.poll.id},
        schema.VOTER: {"S": change.voter},
        schema.NEW_VOTER: {"BOOL": claim.new_voter},
        schema.COUNTED: {"BOOL": change.counted},
        schema.EXPIRES_AT: {"N": str(claim.expires_at)},
        schema.CREATED_AT: {"S": now},
    }
    if change.choice:
        item[schema.OPTION] = {"S": change.choice}
    if change.previous:
        item[schema.PREVIOUS] = {"S": change.previous}
    return item


def is_live(item: dict[str, Any] | None, now: int) -> bool:
    """Whether an idempotency record exists and has not expired at `now` (epoch seconds)."""
    # TTL deletion lags by up to days: an expired record is treated as absent.
    return bool(item) and as_int(item.get(schema.EXPIRES_AT)) >= now


def reply_from_item(item: dict[str, Any]) -> values.StoredReply:
    """Build a values.StoredReply from an idempotency record."""
    return values.StoredReply(
        fingerprint=as_str(item.get(schema.FINGERPRINT)),
        choice=optional_str(item.get(schema.OPTION)),
        previous=optional_str(item.get(schema.PREVIOUS)),
        counted=as_bool(item.get(schema.COUNTED)),
        voter=as_str(item.get(schema.VOTER)),
        new_voter=as_bool(item.get(schema.NEW_VOTER)),
    )


def poll_audit_item(audit: values.PollAudit, suffix: str) -> dict[str, Any]:
    """A poll's audit item: the reset or deletion, who made it, why, and the totals it removed."""
    return {
        **schema.poll_audit_key(audit.poll, audit.at, suffix),
        **audit_attributes(
            actor=audit.actor, reason=audit.reason, old_version=audit.old_version, at=audit.at
        ),
        schema.ACTION: {"S": audit.action},
        schema.TOTALS: {"M": {option: {"N": str(value)} for option, value in audit.totals.items()}},
    }


def poll_audit_from_item(poll_id: str, item: dict[str, Any]) -> values.PollAudit:
    """Build a values.PollAudit from its item."""
    return values.PollAudit(
        poll=poll_id,
        action=as_str(item.get(schema.ACTION)),
        **audit_fields(item),
        totals={option: as_int(value) for option, value in item.get(schema.TOTALS, {}).get("M", {}).items()},
    )
