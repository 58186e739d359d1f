"""Writers nobody here wrote: the AWS CLI and a Lambda-style handler on the AWS SDK for JavaScript v3."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import boto3

from counters.embedded.dynamodb_local import LocalDynamo
from tests.support.processes import PROJECT_DIR

LAMBDA = Path(__file__).with_name("usage_lambda.mjs")
AWS = Path(sys.executable).with_name("aws")


def writer_env(local: LocalDynamo, table: str) -> dict[str, str]:
    """Credentials and endpoint of the session's DynamoDB Local, as any AWS tool reads them."""
    return {
        **os.environ,
        "AWS_ACCESS_KEY_ID": local.access_key_id,
        "AWS_SECRET_ACCESS_KEY": local.secret_access_key,
        "AWS_REGION": local.region,
        "AWS_DEFAULT_REGION": local.region,
        "DYNAMODB_ENDPOINT_URL": local.endpoint_url,
        "USAGE_TABLE": table,
    }


def aws_cli_add(local: LocalDynamo, table: str, name: str, units: int) -> int:
    """`aws dynamodb update-item ... ADD value :n` on a counter's total; the new total."""
    key = {"PK": {"S": f"C#{name}"}, "SK": {"S": "TOTAL"}}
    result = subprocess.run(
        [
            str(AWS),
            "dynamodb",
            "update-item",
            "--endpoint-url",
            local.endpoint_url,
            "--table-name",
            table,
            "--key",
            json.dumps(key),
            "--update-expression",
            "ADD #v :n",
            "--expression-attribute-names",
            json.dumps({"#v": "value"}),
            "--expression-attribute-values",
            json.dumps({":n": {"N": str(units)}}),
            "--return-values",
            "UPDATED_NEW",
            "--output",
            "json",
        ],
        env=writer_env(local, table),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return int(json.loads(result.stdout)["Attributes"]["value"]["N"])


def lambda_add(local: LocalDynamo, table: str, events: list[tuple[str, int]]) -> list[int]:
    """Invoke the Lambda-style handler once per (counter, units), in order; the new totals."""
    payload = json.dumps([{"counter": name, "units": units} for name, units in events])
    result = subprocess.run(
        [shutil.which("node") or "node", str(LAMBDA), payload],
        cwd=PROJECT_DIR,
        env=writer_env(local, table),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return [int(line) for line in result.stdout.split()]


def sdk_add(client, table: str, name: str, units: int = 1) -> int:
    """Another service's `UpdateItem ADD value :n` on a counter's total (boto3, in process); the new total."""
    answer = client.update_item(
        TableName=table,
        Key={"PK": {"S": f"C#{name}"}, "SK": {"S": "TOTAL"}},
        UpdateExpression="ADD #v :n",
        ExpressionAttributeNames={"#v": "value"},
        ExpressionAttributeValues={":n": {"N": str(units)}},
        ReturnValues="UPDATED_NEW",
    )
    return int(answer["Attributes"]["value"]["N"])


# Another service's table, with a key schema of its own, for watched counters.
KEY = {"pk": {"S": "user#42"}}


def outside_client(dynamodb_local):
    """A plain boto3 client of DynamoDB Local, as another service writing to it holds."""
    return boto3.client(
        "dynamodb",
        endpoint_url=dynamodb_local.endpoint_url,
        region_name=dynamodb_local.region,
        aws_access_key_id=dynamodb_local.access_key_id,
        aws_secret_access_key=dynamodb_local.secret_access_key,
    )


def other_table(dynamodb_local, *, stream: bool) -> tuple[object, str]:
    """Another service's table (its own key schema), holding one usage item at 7."""
    client = outside_client(dynamodb_local)
    name = f"billing-{uuid.uuid4().hex[:8]}"
    extra = {"StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}} if stream else {}
    client.create_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        **extra,
    )
    client.put_item(TableName=name, Item={**KEY, "units": {"N": "7"}})
    return client, name


def add_units(client, table: str, units: int) -> None:
    """The other service's own write: ADD units :n."""
    client.update_item(
        TableName=table,
        Key=KEY,
        UpdateExpression="ADD units :n",
        ExpressionAttributeValues={":n": {"N": str(units)}},
    )
