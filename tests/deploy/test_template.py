"""The template in deploy/aws/ passes cfn-lint and checkov, and the table it makes is the one
`counters_init` makes."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import boto3
from cfnlint.api import lint_file
from django.core.management import call_command
from moto import mock_aws

from counters.conf import SETTINGS
from counters.store import get_store
from tests.deploy import aws

CHECKOV = Path(__file__).resolve().parents[2] / ".venv-checkov" / "bin" / "checkov"
REGION = "eu-west-1"
STACK_TABLE = "counters-from-the-template"


def table_shape(client, name: str) -> dict:
    """What the site relies on in a table: keys, attribute types, billing, stream view and TTL."""
    table = client.describe_table(TableName=name)["Table"]
    ttl = client.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    return {
        "keys": sorted((key["AttributeName"], key["KeyType"]) for key in table["KeySchema"]),
        "attributes": sorted((a["AttributeName"], a["AttributeType"]) for a in table["AttributeDefinitions"]),
        "billing": table["BillingModeSummary"]["BillingMode"],
        "stream": table["StreamSpecification"],
        "ttl": (ttl.get("AttributeName"), ttl["TimeToLiveStatus"] in ("ENABLED", "ENABLING")),
        "indexes": table.get("GlobalSecondaryIndexes", []) + table.get("LocalSecondaryIndexes", []),
    }


def stack_of_the_template() -> tuple[dict, dict]:
    """Create the stack in moto's CloudFormation: the table's shape and the stack's outputs."""
    cloudformation = boto3.client("cloudformation", region_name=REGION)
    cloudformation.create_stack(
        StackName="counters",
        TemplateBody=aws.TEMPLATE.read_text(),
        Parameters=[{"ParameterKey": "TableName", "ParameterValue": STACK_TABLE}],
        Capabilities=["CAPABILITY_IAM"],
    )
    stack = cloudformation.describe_stacks(StackName="counters")["Stacks"][0]
    outputs = {output["OutputKey"]: output for output in stack["Outputs"]}
    return table_shape(boto3.client("dynamodb", region_name=REGION), STACK_TABLE), outputs


def test_the_stack_makes_the_table_counters_init_makes(store_settings, monkeypatch):
    call_command("counters_init", "--no-demo", stdout=io.StringIO())
    made = table_shape(get_store().retrying, store_settings.COUNTERS_TABLE)
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(key, "testing")
    with mock_aws():
        templated, outputs = stack_of_the_template()
    # moto's CloudFormation leaves TimeToLiveSpecification unapplied: the stack's TTL is the template's.
    ttl = aws.template()["Resources"]["CountersTable"]["Properties"]["TimeToLiveSpecification"]
    templated["ttl"] = (ttl["AttributeName"], ttl["Enabled"])
    assert templated == made
    assert made["stream"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert made["ttl"] == ("expires_at", True) and made["billing"] == "PAY_PER_REQUEST"
    assert outputs["CountersTable"]["OutputValue"] == STACK_TABLE
    assert outputs["AwsRegion"]["OutputValue"] == REGION


def test_the_outputs_name_the_settings_the_site_reads():
    outputs = aws.template()["Outputs"]
    named = {output["Description"] for output in outputs.values() if output["Description"].isupper()}
    assert named == {"COUNTERS_TABLE", "AWS_REGION", "DYNAMODB_ENDPOINT_URL"}
    assert named <= set(SETTINGS)


def test_the_table_is_kept_safe():
    table = aws.template()["Resources"]["CountersTable"]
    assert table["DeletionPolicy"] == table["UpdateReplacePolicy"] == "Retain"
    properties = table["Properties"]
    assert properties["DeletionProtectionEnabled"] is True
    assert properties["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert {tag["Key"] for tag in properties["Tags"]} == {"project", "environment"}


def test_cfn_lint_passes():
    assert [str(match) for match in lint_file(aws.TEMPLATE)] == []


def test_checkov_passes():
    assert CHECKOV.exists(), "checkov is missing: `make test` installs it in .venv-checkov"
    run = subprocess.run(
        [
            str(CHECKOV),
            "-f",
            str(aws.TEMPLATE),
            "--framework",
            "cloudformation",
            "--skip-download",
            "--quiet",
            "--compact",
            "-o",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(run.stdout)
    assert report["summary"]["failed"] == 0 and report["summary"]["passed"] > 0, run.stdout
    assert run.returncode == 0, run.stderr
