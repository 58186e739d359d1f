"""An expression's attribute names and values from named parts: `#part` and `:part`, each value typed once.

table.update(key, update="ADD #count :one", names=named(count=schema.COUNT), values=typed(one=1))
"""

from __future__ import annotations

from typing import Any

# What a part's value may be: BOOL, N, S, B, or a dict already in DynamoDB's form (a list or map of items.py).
Value = bool | int | float | str | bytes | dict[str, Any]


def named(**parts: str) -> dict[str, str]:
    """ExpressionAttributeNames: `#part` for each attribute name (the names stay in schema.py)."""
    return {f"#{part}": attribute for part, attribute in parts.items()}


def typed(**parts: Value) -> dict[str, dict[str, Any]]:
    """ExpressionAttributeValues: `:part` for each value, typed as DynamoDB takes it."""
    return {f":{part}": attribute_value(value) for part, value in parts.items()}


def attribute_value(value: Value) -> dict[str, Any]:
    """One value in DynamoDB's typed form (bool before int: True is an int)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int | float):
        return {"N": str(value)}
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, bytes):
        return {"B": value}
    raise TypeError(f"No DynamoDB type for {type(value).__name__}.")
