"""Read a counter's reset history: the audit items `SK=RESET#<time>#<id>` written with each reset."""

from __future__ import annotations

from typing import Any

from counters.domain.values import ResetRecord
from counters.store.dynamodb import schema as s
from counters.store.dynamodb.outage import unavailable_on_outage
from counters.store.dynamodb.resets import RESET_SK_PREFIX
from counters.store.dynamodb.schema import as_int, as_str


def record_from_item(name: str, item: dict[str, Any]) -> ResetRecord:
    """Build a ResetRecord from an audit item."""
    return ResetRecord(
        name=name,
        at=as_str(item.get(s.CREATED_AT)),
        actor=as_str(item.get("actor")),
        reason=as_str(item.get("reason")),
        old_value=as_int(item.get("old_value")),
        old_version=as_int(item.get("old_version")),
        new_version=as_int(item.get("new_version")),
    )


class ResetAuditMixin:
    """`reset_history` for DynamoCounterStore."""

    table: str
    retrying: Any

    def reset_history(self, name: str, *, limit: int = 50) -> list[ResetRecord]:
        """The newest `limit` audit records of a counter, from one Query on its partition."""
        # The sort key starts with the ISO time, so reading the range backwards is newest first.
        with unavailable_on_outage():
            response = self.retrying.query(
                TableName=self.table,
                KeyConditionExpression="#pk = :pk AND begins_with(#sk, :prefix)",
                ExpressionAttributeNames={"#pk": s.PK, "#sk": s.SK},
                ExpressionAttributeValues={
                    ":pk": {"S": s.counter_pk(name)},
                    ":prefix": {"S": RESET_SK_PREFIX},
                },
                ScanIndexForward=False,
                Limit=limit,
                ConsistentRead=True,
            )
        return [record_from_item(name, item) for item in response.get("Items", [])]
