"""The suite's tiers: tests that need DynamoDB Local are marked `dynamodb`, which the fast tier leaves out.

A test needs it when its fixtures reach `dynamodb_local` (through `store`, `demo_store`, ...); a test that
picks its store by parameter marks its DynamoDB Local case itself with `ON_DYNAMODB`.
"""

from __future__ import annotations

import pytest

ON_DYNAMODB = pytest.mark.dynamodb
DYNAMODB_FIXTURE = "dynamodb_local"


def mark_dynamodb(items: list[pytest.Item]) -> None:
    """Mark `dynamodb` every test whose fixtures start DynamoDB Local."""
    for item in items:
        if DYNAMODB_FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker(ON_DYNAMODB)


def require_the_mark(request: pytest.FixtureRequest) -> None:
    """Fail a test that reaches DynamoDB Local unmarked: the fast tier would start Java for it unseen."""
    if request.node.get_closest_marker("dynamodb") is None:
        pytest.fail(
            f"{request.node.nodeid} uses DynamoDB Local without the `dynamodb` mark: "
            "give its DynamoDB Local case `marks=tests.support.tiers.ON_DYNAMODB`"
        )
