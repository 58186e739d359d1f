"""The store's writes sent directly: signed, answered, refused and resent as botocore does it."""

from __future__ import annotations

import time

import boto3
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

from counters.exceptions import StoreUnavailable
from counters.store.dynamodb.clients import Connection, build_clients
from counters.store.dynamodb.direct import DirectCalls, direct_calls
from tests.support.round_trips import round_trips
from tests.support.store_faults import store_faults
from tests.support.voting import poll_tally

PARAMS = {
    "TableName": "counters",
    "Key": {"PK": {"S": "counter#welcome"}, "SK": {"S": "total"}},
    "UpdateExpression": "ADD #v :one",
    "ExpressionAttributeNames": {"#v": "value"},
    "ExpressionAttributeValues": {":one": {"N": "1"}, ":salt": {"B": b"\x00\xff"}},
    "ReturnValues": "UPDATED_NEW",
}


def botocore_signature(request, credentials: Credentials, region: str) -> str:
    """The Authorization botocore's SigV4 computes for the same headers, body and time."""
    headers = {k: v for k, v in request.headers.items() if k not in ("Authorization", "User-Agent", "Host")}
    aws = AWSRequest(method="POST", url=request.url, data=request.body, headers=headers)
    aws.context["timestamp"] = headers["X-Amz-Date"]
    auth = SigV4Auth(credentials.get_frozen_credentials(), "dynamodb", region)
    signature = auth.signature(auth.string_to_sign(aws, auth.canonical_request(aws)), aws)
    return f"SignedHeaders={auth.signed_headers(auth.headers_to_sign(aws))}, Signature={signature}"


@pytest.mark.parametrize(
    ("endpoint", "token"),
    [
        ("http://127.0.0.1:8123", None),
        ("http://[::1]:8123", None),
        ("https://dynamodb.eu-west-1.amazonaws.com", "session-token"),
    ],
)
def test_a_request_is_signed_as_botocore_signs_it(endpoint, token):
    clients = build_clients(Connection(endpoint, "eu-west-1", "AKIDEXAMPLE", "secret"))
    credentials = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token)
    sender = DirectCalls(clients.single_shot, credentials)
    request = sender.request("UpdateItem", PARAMS, now=time.gmtime(1_700_000_000))
    assert request.headers["X-Amz-Date"] == "20231114T221320Z"
    assert request.headers["X-Amz-Target"] == "DynamoDB_20120810.UpdateItem"
    assert request.headers["Authorization"].startswith(
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20231114/eu-west-1/dynamodb/aws4_request, "
    )
    assert request.headers["Authorization"].endswith(botocore_signature(request, credentials, "eu-west-1"))
    assert (request.headers.get("X-Amz-Security-Token")) == token


def test_a_client_through_a_proxy_keeps_botocore(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    proxied = build_clients(Connection("http://dynamodb.example:8000", "us-east-1", "key", "secret"))
    assert direct_calls(proxied.single_shot) is None
    monkeypatch.delenv("HTTP_PROXY")
    direct = build_clients(Connection("http://dynamodb.example:8000", "us-east-1", "key", "secret"))
    assert direct_calls(direct.single_shot) is not None
    session = boto3.session.Session(
        aws_access_key_id="key", aws_secret_access_key="secret", region_name="us-east-1"
    )
    configured = session.client("dynamodb", config=Config(proxies={"https": "http://proxy.example:3128"}))
    assert direct_calls(configured) is None


def test_an_answer_and_a_refusal_read_as_botocore_reads_them(demo_store):
    sender = demo_store.gateway.direct
    assert sender is not None
    key = {"PK": {"S": "direct#check"}, "SK": {"S": "total"}}
    common = {
        "TableName": demo_store.table,
        "Key": key,
        "ExpressionAttributeNames": {"#v": "value"},
    }
    added = {"UpdateExpression": "ADD #v :one SET salt = :salt", "ReturnValues": "ALL_NEW"}
    values = {":one": {"N": "1"}, ":salt": {"B": b"\x00\xff"}}
    direct = sender.call("UpdateItem", {**common, **added, "ExpressionAttributeValues": values})
    sdk = demo_store.retrying.update_item(**common, **added, ExpressionAttributeValues=values)
    assert direct["Attributes"]["salt"] == sdk["Attributes"]["salt"] == {"B": b"\x00\xff"}
    assert (int(direct["Attributes"]["value"]["N"]), int(sdk["Attributes"]["value"]["N"])) == (1, 2)

    refused = {
        "UpdateExpression": "ADD #v :one",
        "ConditionExpression": "#v > :big",
        "ExpressionAttributeValues": {":one": {"N": "1"}, ":big": {"N": "100"}},
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }
    errors = []
    for send in (
        lambda: sender.call("UpdateItem", {**common, **refused}),
        lambda: demo_store.retrying.update_item(**common, **refused),
    ):
        with pytest.raises(ClientError) as caught:
            send()
        errors.append(caught.value.response)
    assert errors[0]["Error"] == errors[1]["Error"]
    assert errors[0]["Error"]["Code"] == "ConditionalCheckFailedException"
    assert errors[0]["Item"] == errors[1]["Item"]
    assert errors[0]["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_a_vote_throttled_once_is_sent_again_and_counted_once(demo_store):
    before = poll_tally(demo_store, "language")
    with store_faults(demo_store) as faults, round_trips(demo_store) as sent:
        faults.arm("throttle", operation="TransactWriteItems", times=1, error_type="ThrottlingException")
        assert demo_store.cast_vote("language", voter="anon:resent", option="go").counted
    assert sent.of_thread().count("TransactWriteItems") == 2
    assert poll_tally(demo_store, "language")["go"] == before["go"] + 1


def test_an_increment_is_never_sent_twice(demo_store):
    with store_faults(demo_store) as faults, round_trips(demo_store) as sent:
        faults.arm("throttle", operation="UpdateItem", times=1, error_type="ThrottlingException")
        with pytest.raises(StoreUnavailable):
            demo_store.increment("welcome", kind="views")
    assert sent.operations() == ["UpdateItem"]
