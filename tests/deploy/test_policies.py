"""The IAM policies in deploy/aws/ grant each role exactly the DynamoDB actions its code calls, on the
table and its stream only, and parliament finds nothing in them."""

from __future__ import annotations

import pytest
from parliament import analyze_policy_string

from counters.store import get_store
from counters.store.dynamodb import schema
from tests.deploy import aws, roles
from tests.support.iam_calls import STREAM

ROLES = tuple(aws.POLICIES)


@pytest.fixture
def called(call_recorder, store_settings, django_db_setup, django_db_blocker):
    """Each role's code paths run once on a fresh table; what each called on it and on its stream."""
    with django_db_blocker.unblock():
        with call_recorder.playing("operator"):
            roles.run_commands()
        with call_recorder.playing("web"):
            roles.browse_and_vote()
        with call_recorder.playing("stream"):
            roles.read_stream()
        first = store_settings.COUNTERS_TABLE
        # The operator's other path: a table made without a stream gets one from `counters_init`.
        store_settings.COUNTERS_TABLE = f"{first}-nostream"
        with call_recorder.playing("setup"):
            definition = {k: v for k, v in schema.TABLE_DEFINITION.items() if k != "StreamSpecification"}
            get_store().retrying.create_table(TableName=store_settings.COUNTERS_TABLE, **definition)
        with call_recorder.playing("operator"):
            roles.turn_the_stream_on()
    ours = {first, store_settings.COUNTERS_TABLE}
    for role in ROLES:
        assert call_recorder.resources(role) <= ours | {STREAM}, f"{role} called another table"
    return {
        role: {
            "table": set().union(*(call_recorder.actions(role, table) for table in ours)),
            "stream": call_recorder.actions(role, STREAM),
        }
        for role in ROLES
    }


def test_each_policy_grants_exactly_what_its_roles_code_calls(called):
    for role in ROLES:
        granted = aws.granted(role)
        for resource in ("table", "stream"):
            missing = called[role][resource] - granted[resource]
            unused = granted[resource] - called[role][resource]
            assert not missing, f"{role} calls {sorted(missing)} on the {resource}; its policy lacks them"
            assert not unused, (
                f"{role}'s policy grants {sorted(unused)} on the {resource}; no code calls them"
            )


@pytest.mark.parametrize("role", ROLES)
def test_parliament_finds_nothing(role):
    findings = analyze_policy_string(aws.policy_text(role)).findings
    assert findings == [], [str(finding) for finding in findings]


@pytest.mark.parametrize("role", ROLES)
def test_the_template_holds_each_policy_on_its_own_table_and_stream(role):
    file, logical = aws.POLICIES[role]
    resource = aws.template()["Resources"][logical]
    assert resource["Type"] == "AWS::IAM::ManagedPolicy"
    document = resource["Properties"]["PolicyDocument"]
    arns = {
        repr({"Fn::GetAtt": ["CountersTable", "Arn"]}): aws.EXAMPLE_TABLE_ARN,
        repr({"Fn::Sub": "${CountersTable.Arn}/stream/*"}): aws.EXAMPLE_STREAM_ARN,
    }
    for statement in document["Statement"]:
        statement["Resource"] = arns[repr(statement["Resource"])]
    assert document == aws.policy(role), f"{logical} differs from deploy/aws/policies/{file}"
