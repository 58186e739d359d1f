"""Votes in DynamoDB: one vote per voter per poll, each change one TransactWriteItems.

Items (see docs/design.md):
- voter record `PK=P#<poll>`, `SK=VOTER#<voter>`: `option` (absent once retracted) and `rev`, which
  grows with every change. The transaction's condition is on `rev`, not on `option`, so a vote that
  went A -> B -> A between our read and our write is still seen as changed (no ABA).
- option totals `PK=C#<poll>.<option>`, `SK=TOTAL`: +1 on the new option, -1 on the old one, the
  decrement guarded by `value >= 1` so no total ever goes below zero.
- idempotency record `PK=IDEM#<voter>#<key>`, `SK=IDEM`: put in the same transaction (absent or
  expired), holding the request's fingerprint and the change; the reply is added right after.
  Keys are scoped per voter, so two clients picking the same key never collide.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from typing import Any

from counters.domain.names import option_counter_name
from counters.domain.values import IdempotencyClaim, PollDefinition, StoredReply, VoteChange, VoterRecord
from counters.exceptions import (
    Conflict,
    IdempotencyRace,
    InvalidInput,
    PollClosed,
    StoreUnavailable,
    UnknownCounter,
)
from counters.store.dynamodb import schema as s
from counters.store.dynamodb.outage import unavailable_on_outage
from counters.store.dynamodb.schema import as_int, as_str
from counters.store.dynamodb.shards import cancellation_codes

OPTION = "option"
REV = "rev"
VOTER = "voter"
FINGERPRINT = "fingerprint"
REPLY = "reply"
CLOSED = "closed"
OPTIONS = "options"
VOTER_SK_PREFIX = "VOTER#"
IDEM_PK_PREFIX = "IDEM#"
IDEM_SK = "IDEM"

# A transaction cancelled by a concurrent click is taken again from a fresh read, with jitter.
VOTE_ATTEMPTS = 8
BACKOFF_SECONDS = 0.01

POLL_OPEN = "attribute_exists(#pk) AND #closed = :false"
VOTER_UNCHANGED_NEW = "attribute_not_exists(#pk)"
VOTER_UNCHANGED = "#rev = :rev"
ADD_VOTE = "SET #value = if_not_exists(#value, #start) + :one, #updated = :now ADD #version :one"
REMOVE_VOTE = "SET #value = #value - :one, #updated = :now ADD #version :one"
IS_VOTES = "attribute_exists(#pk) AND #kind = :votes"
ABOVE_ZERO = "attribute_exists(#pk) AND #kind = :votes AND #value >= :one"
AT_ZERO = "attribute_exists(#pk) AND (attribute_not_exists(#value) OR #value < :one)"
IDEM_FREE = "attribute_not_exists(#pk) OR #expires < :nowts"


def voter_key(poll_id: str, voter: str) -> dict[str, Any]:
    """Key of a voter's record in a poll."""
    return {s.PK: {"S": s.poll_pk(poll_id)}, s.SK: {"S": f"{VOTER_SK_PREFIX}{voter}"}}


def idempotency_key(voter: str, key: str) -> dict[str, Any]:
    """Key of an idempotency record, scoped to the voter who sent it."""
    return {s.PK: {"S": f"{IDEM_PK_PREFIX}{voter}#{key}"}, s.SK: {"S": IDEM_SK}}


def optional_str(attribute: dict[str, Any] | None) -> str | None:
    """A string attribute, or None when absent or NULL."""
    return attribute["S"] if attribute and "S" in attribute else None


class VotesMixin:
    """Votes for DynamoCounterStore: casting, moving and retracting votes, and poll administration."""

    client: Any
    retrying: Any
    table: str

    # ---- reads ----

    def voter_record(self, poll_id: str, voter: str) -> VoterRecord:
        """A voter's choice in a poll, strongly consistent."""
        with unavailable_on_outage():
            item = self.retrying.get_item(
                TableName=self.table, Key=voter_key(poll_id, voter), ConsistentRead=True
            ).get("Item")
        if not item:
            return VoterRecord(option=None, rev=0)
        return VoterRecord(option=optional_str(item.get(OPTION)), rev=as_int(item.get(REV)))

    def voter_choices(self, voter: str, poll_ids: list[str]) -> dict[str, str]:
        """A voter's choice in each of several polls (polls without a vote are left out)."""
        keys = [voter_key(poll_id, voter) for poll_id in dict.fromkeys(poll_ids)]
        choices: dict[str, str] = {}
        for start in range(0, len(keys), 100):
            for item in self._batch_get(keys[start : start + 100]):
                if option := optional_str(item.get(OPTION)):
                    choices[item[s.PK]["S"].removeprefix("P#")] = option
        return choices

    def poll_voters(self, poll_id: str) -> dict[str, str]:
        """Every voter holding a vote in a poll, with their option (one Query of the poll's partition)."""
        voters = {}
        for item in self._query_all(s.poll_pk(poll_id)):
            option = optional_str(item.get(OPTION))
            if item[s.SK]["S"].startswith(VOTER_SK_PREFIX) and option:
                voters[item[s.SK]["S"].removeprefix(VOTER_SK_PREFIX)] = option
        return voters

    def stored_reply(self, voter: str, key: str, *, now: int | None = None) -> StoredReply | None:
        """The live idempotency record of a voter's key, or None (expired records count as gone)."""
        with unavailable_on_outage():
            item = self.retrying.get_item(
                TableName=self.table, Key=idempotency_key(voter, key), ConsistentRead=True
            ).get("Item")
        # TTL deletion lags by up to days: an expired record is treated as absent here and below.
        if not item or as_int(item.get(s.EXPIRES_AT)) < (now or int(time.time())):
            return None
        reply = optional_str(item.get(REPLY))
        return StoredReply(
            fingerprint=as_str(item.get(FINGERPRINT)),
            choice=optional_str(item.get(OPTION)),
            previous=optional_str(item.get("previous")),
            counted=bool(item.get("counted", {}).get("BOOL", False)),
            reply=json.loads(reply) if reply else None,
        )

    def save_reply(self, voter: str, key: str, reply: dict) -> None:
        """Attach the first reply to an idempotency record, so replays answer exactly that."""
        try:
            with unavailable_on_outage():
                self.retrying.update_item(
                    TableName=self.table,
                    Key=idempotency_key(voter, key),
                    UpdateExpression="SET #reply = :reply",
                    ConditionExpression="attribute_exists(#pk) AND attribute_not_exists(#reply)",
                    ExpressionAttributeNames={"#pk": s.PK, "#reply": REPLY},
                    ExpressionAttributeValues={":reply": {"S": json.dumps(reply, separators=(",", ":"))}},
                )
        except self.retrying.exceptions.ConditionalCheckFailedException:
            pass  # a concurrent replay saved it first; both describe the same change

    # ---- the vote transaction ----

    def cast_vote(
        self, poll_id: str, *, voter: str, option: str | None, claim: IdempotencyClaim | None = None
    ) -> VoteChange:
        """Make `option` the voter's choice (None retracts) in one transaction; retry on a race."""
        floor_hit = False
        for attempt in range(VOTE_ATTEMPTS):
            poll, record = self._vote_reads(poll_id, voter, claim)
            if poll.closed:
                raise PollClosed(f"The poll {poll_id!r} is closed and takes no more votes.")
            if option is not None and option not in {o.id for o in poll.options}:
                raise InvalidInput(f"The poll {poll_id!r} has no option {option!r}.")
            change = VoteChange(poll=poll, voter=voter, choice=option, previous=record.option)
            if not change.counted and claim is None:
                return change
            items, roles = self._vote_items(change, record, claim, floor_hit=floor_hit)
            try:
                # A lost answer may hide a committed vote: never claim "nothing was changed".
                with unavailable_on_outage(write=True):
                    self.retrying.transact_write_items(
                        TransactItems=items, ClientRequestToken=str(uuid.uuid4())
                    )
                return change
            except self.retrying.exceptions.TransactionCanceledException as exc:
                codes = dict(zip(roles, cancellation_codes(exc), strict=False))
                # The old total refused -1 (already 0, e.g. reset by staff): next time only check it
                # is still 0, and flip back if a vote arrived meanwhile. A stale guess costs a retry.
                if codes.get("old") == "ConditionalCheckFailed":
                    floor_hit = not floor_hit
                if codes.get("idem") == "ConditionalCheckFailed":
                    raise IdempotencyRace from exc
                if any(
                    code in {"ThrottlingError", "ProvisionedThroughputExceeded"} for code in codes.values()
                ):
                    raise StoreUnavailable("The counter store is busy; nothing was changed.") from exc
            except self.retrying.exceptions.TransactionInProgressException:
                pass  # an SDK resend met its own first send still running: read again, then decide
            time.sleep(random.uniform(0, BACKOFF_SECONDS * 2**attempt))
        raise Conflict("Your vote changed at the same moment from elsewhere; nothing was changed. Try again.")

    def _vote_reads(
        self, poll_id: str, voter: str, claim: IdempotencyClaim | None
    ) -> tuple[PollDefinition, VoterRecord]:
        """Poll, voter record and (with a key) idempotency record in one consistent BatchGetItem."""
        keys = [s.poll_registry_key(poll_id), voter_key(poll_id, voter)]
        if claim is not None:
            keys.append(idempotency_key(voter, claim.key))
        items = {item[s.PK]["S"]: item for item in self._batch_get(keys)}
        if s.POLL_REGISTRY_PK not in items:
            raise UnknownCounter(f"There is no poll named {poll_id!r}.")
        idem = items.get(idempotency_key(voter, claim.key)[s.PK]["S"]) if claim else None
        if idem is not None and as_int(idem.get(s.EXPIRES_AT)) >= int(time.time()):
            raise IdempotencyRace  # the key was used already: the caller answers from its record
        from counters.store.dynamodb.backend import poll_from_item

        voter_item = items.get(s.poll_pk(poll_id))
        record = VoterRecord(
            option=optional_str(voter_item.get(OPTION)) if voter_item else None,
            rev=as_int(voter_item.get(REV)) if voter_item else 0,
        )
        return poll_from_item(items[s.POLL_REGISTRY_PK]), record

    def _vote_items(
        self, change: VoteChange, record: VoterRecord, claim: IdempotencyClaim | None, *, floor_hit: bool
    ) -> tuple[list[dict[str, Any]], list[str]]:
        """The transaction's items and the role of each (for reading cancellation reasons)."""
        now = s_now()
        items: list[dict[str, Any]] = []
        roles: list[str] = []
        unchanged = VOTER_UNCHANGED if record.rev else VOTER_UNCHANGED_NEW
        rev_values = {":rev": {"N": str(record.rev)}} if record.rev else {}
        if change.counted:
            items.append(self._poll_open_check(change.poll.id))
            roles.append("poll")
            voter_item = {
                **voter_key(change.poll.id, change.voter),
                VOTER: {"S": change.voter},
                REV: {"N": str(record.rev + 1)},
                s.UPDATED_AT: {"S": now},
            }
            if change.choice:
                voter_item[OPTION] = {"S": change.choice}
            put: dict[str, Any] = {
                "TableName": self.table,
                "Item": voter_item,
                "ConditionExpression": unchanged,
            }
            put["ExpressionAttributeNames"] = {"#rev": REV} if record.rev else {"#pk": s.PK}
            if rev_values:
                put["ExpressionAttributeValues"] = rev_values
            items.append({"Put": put})
            roles.append("voter")
            if change.choice:
                items.append(self._total_update(change.poll.id, change.choice, ADD_VOTE, IS_VOTES, now))
                roles.append("new")
            if change.previous:
                if floor_hit:
                    items.append(self._total_check(change.poll.id, change.previous))
                else:
                    items.append(
                        self._total_update(change.poll.id, change.previous, REMOVE_VOTE, ABOVE_ZERO, now)
                    )
                roles.append("old")
        else:
            check: dict[str, Any] = {
                "TableName": self.table,
                "Key": voter_key(change.poll.id, change.voter),
                "ConditionExpression": unchanged,
                "ExpressionAttributeNames": {"#rev": REV} if record.rev else {"#pk": s.PK},
            }
            if rev_values:
                check["ExpressionAttributeValues"] = rev_values
            items.append({"ConditionCheck": check})
            roles.append("voter")
        if claim is not None:
            items.append(self._idempotency_put(change, claim))
            roles.append("idem")
        return items, roles

    def _poll_open_check(self, poll_id: str) -> dict[str, Any]:
        """Refuse the vote if the poll was closed (or removed) since we read it."""
        return {
            "ConditionCheck": {
                "TableName": self.table,
                "Key": s.poll_registry_key(poll_id),
                "ConditionExpression": POLL_OPEN,
                "ExpressionAttributeNames": {"#pk": s.PK, "#closed": CLOSED},
                "ExpressionAttributeValues": {":false": {"BOOL": False}},
            }
        }

    def _total_update(self, poll_id: str, option: str, expression: str, condition: str, now: str) -> dict:
        """ADD or remove one vote on an option's total (never read-then-set)."""
        names = {
            "#pk": s.PK,
            "#value": s.VALUE,
            "#updated": s.UPDATED_AT,
            "#version": s.VERSION,
            "#kind": s.KIND,
        }
        if "#start" in expression:
            names["#start"] = s.START
        return {
            "Update": {
                "TableName": self.table,
                "Key": s.total_key(option_counter_name(poll_id, option)),
                "UpdateExpression": expression,
                "ConditionExpression": condition,
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": {
                    ":one": {"N": "1"},
                    ":now": {"S": now},
                    ":votes": {"S": "votes"},
                },
            }
        }

    def _total_check(self, poll_id: str, option: str) -> dict[str, Any]:
        """The old option's total is already 0 (e.g. reset by staff): move the vote, leave it at 0."""
        return {
            "ConditionCheck": {
                "TableName": self.table,
                "Key": s.total_key(option_counter_name(poll_id, option)),
                "ConditionExpression": AT_ZERO,
                "ExpressionAttributeNames": {"#pk": s.PK, "#value": s.VALUE},
                "ExpressionAttributeValues": {":one": {"N": "1"}},
            }
        }

    def _idempotency_put(self, change: VoteChange, claim: IdempotencyClaim) -> dict[str, Any]:
        """The idempotency record, written only if the key is new (or its record expired)."""
        item: dict[str, Any] = {
            **idempotency_key(change.voter, claim.key),
            FINGERPRINT: {"S": claim.fingerprint},
            "poll": {"S": change.poll.id},
            "counted": {"BOOL": change.counted},
            s.EXPIRES_AT: {"N": str(claim.expires_at)},
            s.CREATED_AT: {"S": s_now()},
        }
        if change.choice:
            item[OPTION] = {"S": change.choice}
        if change.previous:
            item["previous"] = {"S": change.previous}
        return {
            "Put": {
                "TableName": self.table,
                "Item": item,
                "ConditionExpression": IDEM_FREE,
                "ExpressionAttributeNames": {"#pk": s.PK, "#expires": s.EXPIRES_AT},
                "ExpressionAttributeValues": {":nowts": {"N": str(int(time.time()))}},
            }
        }

    # ---- poll administration ----


def s_now() -> str:
    """Current UTC time in the store's `updated_at` format."""
    from counters.store.dynamodb.backend import now_iso

    return now_iso()
