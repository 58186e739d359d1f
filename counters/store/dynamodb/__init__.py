"""The DynamoDB backend; `counters.store.dynamodb.DynamoCounterStore` is its dotted path too."""

from counters.store.dynamodb.backend import DynamoCounterStore

__all__ = ["DynamoCounterStore"]
