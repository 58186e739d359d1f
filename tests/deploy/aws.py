"""The AWS template and policies in deploy/aws/, read as data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "aws"
TEMPLATE = DEPLOY / "counters-table.yaml"
# Which policy file each role's managed policy in the template holds.
POLICIES = {
    "web": ("counters-web.json", "WebWorkersPolicy"),
    "stream": ("counters-stream.json", "StreamReaderPolicy"),
    "operator": ("counters-operator.json", "OperatorPolicy"),
}
# The ARNs the policy files name, standing for the stack's table and its stream.
EXAMPLE_TABLE_ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/counters"
EXAMPLE_STREAM_ARN = f"{EXAMPLE_TABLE_ARN}/stream/*"


def template() -> dict[str, Any]:
    """The template (it uses only the long forms `Fn::GetAtt` and `Fn::Sub`, so plain YAML reads it)."""
    return yaml.safe_load(TEMPLATE.read_text())


def policy_text(role: str) -> str:
    """A role's policy file, as written."""
    return (DEPLOY / "policies" / POLICIES[role][0]).read_text()


def policy(role: str) -> dict[str, Any]:
    """A role's policy document."""
    return json.loads(policy_text(role))


def granted(role: str) -> dict[str, set[str]]:
    """What a role's policy allows: `table` and `stream` -> the DynamoDB actions, without the prefix."""
    where = {EXAMPLE_TABLE_ARN: "table", EXAMPLE_STREAM_ARN: "stream"}
    allowed: dict[str, set[str]] = {"table": set(), "stream": set()}
    for statement in policy(role)["Statement"]:
        assert statement["Effect"] == "Allow"
        for action in statement["Action"]:
            service, _, name = action.partition(":")
            assert service == "dynamodb", action
            allowed[where[statement["Resource"]]].add(name)
    return allowed
