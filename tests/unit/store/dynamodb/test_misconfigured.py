"""Configuration errors are named with their fix, apart from an outage, against botocore's own failures.

No credentials in the environment, an endpoint where nothing has ever listened, and a table nobody
created (on DynamoDB Local) each reach the operator as a sentence saying what to change: in the log,
in /readyz, in the API's 503 JSON, on the admin's 503 page and from `counters_init`. A store that did
answer and then went away is still an outage ("try again shortly").
"""

from __future__ import annotations

import logging

import pytest
from botocore.exceptions import ClientError
from django.core.management import CommandError, call_command
from django.test import Client

from counters.embedded.dynamodb_local import InMemoryDynamo
from counters.exceptions import StoreMisconfigured, StoreUnavailable
from counters.store import get_store
from counters.store.dynamodb import misconfigured
from tests.support.admin_users import make_user
from tests.support.processes import PROJECT_DIR
from tests.support.stores import store_at_nothing

MISCONFIGURED_LOGGER = "counters.store.dynamodb.misconfigured"


@pytest.fixture
def no_credentials(store_settings, monkeypatch, tmp_path):
    """DynamoDB Local's endpoint, and nowhere in boto3's chain a credential to sign with."""
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    return store_settings


@pytest.fixture
def wrong_endpoint(settings, monkeypatch):
    """Credentials, and an endpoint on a port where nothing listens (a typo in DYNAMODB_ENDPOINT_URL)."""
    store_at_nothing(settings, monkeypatch)
    return settings


@pytest.fixture
def missing_table(store_settings):
    """DynamoDB Local with credentials, and COUNTERS_TABLE naming a table nobody created."""
    return store_settings


def misconfigured_store_error() -> StoreMisconfigured:
    with pytest.raises(StoreMisconfigured) as raised:
        get_store().get("welcome")
    return raised.value


def assert_named_everywhere(sentence: str, caplog, *, endpoint: str) -> None:
    """The API's 503 JSON, /readyz and the log each say `sentence`; the log also names the endpoint."""
    caplog.clear()
    api = Client().get("/api/counters")
    assert api.status_code == 503
    assert api.json() == {"error": "store_misconfigured", "detail": sentence}
    ready = Client().get("/readyz")
    assert ready.status_code == 503
    assert sentence in ready.json()["detail"] and endpoint not in ready.json()["detail"]
    logged = [r for r in caplog.records if r.name == MISCONFIGURED_LOGGER and r.levelno == logging.ERROR]
    assert logged and sentence in logged[0].getMessage() and endpoint in logged[0].getMessage()


@pytest.mark.django_db
def test_no_credentials_says_which_settings_to_set(no_credentials, caplog):
    error = misconfigured_store_error()
    assert error.detail == misconfigured.NO_CREDENTIALS
    assert "AWS_ACCESS_KEY_ID" in error.detail and "AWS_SECRET_ACCESS_KEY" in error.detail
    assert_named_everywhere(
        misconfigured.NO_CREDENTIALS, caplog, endpoint=no_credentials.DYNAMODB_ENDPOINT_URL
    )
    with pytest.raises(CommandError, match="no AWS credentials"):
        call_command("counters_init", "--no-demo")


@pytest.mark.django_db
def test_the_admin_names_the_misconfiguration_on_its_503_page(no_credentials):
    browser = Client()
    browser.force_login(make_user("staff", "view_counter"))
    page = browser.get("/admin/counters/counter/")
    assert page.status_code == 503
    text = page.content.decode()
    assert "Counter store not set up" in text and "AWS_SECRET_ACCESS_KEY" in text
    assert "try again shortly" not in text


@pytest.mark.django_db
def test_an_endpoint_that_never_answered_names_the_endpoint_settings(wrong_endpoint, caplog):
    error = misconfigured_store_error()
    assert error.detail == misconfigured.NEVER_ANSWERED
    assert "DYNAMODB_ENDPOINT_URL" in error.detail and "AWS_REGION" in error.detail
    assert_named_everywhere(
        misconfigured.NEVER_ANSWERED, caplog, endpoint=wrong_endpoint.DYNAMODB_ENDPOINT_URL
    )


@pytest.mark.django_db
def test_a_missing_table_says_to_run_counters_init(missing_table, caplog):
    error = misconfigured_store_error()
    assert error.detail == misconfigured.NO_TABLE and "counters_init" in error.detail
    assert_named_everywhere(misconfigured.NO_TABLE, caplog, endpoint=missing_table.DYNAMODB_ENDPOINT_URL)
    logged = [r.getMessage() for r in caplog.records if r.name == MISCONFIGURED_LOGGER]
    assert any(repr(missing_table.COUNTERS_TABLE) in message for message in logged)

    call_command("counters_init", "--no-demo")
    assert Client().get("/api/counters").json() == {"counters": []}


@pytest.mark.processes  # starts and stops a DynamoDB Local of its own
def test_a_store_that_answered_and_then_went_away_is_an_outage(settings, monkeypatch):
    with InMemoryDynamo(base_dir=PROJECT_DIR) as local:
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", local.access_key_id)
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", local.secret_access_key)
        settings.DYNAMODB_ENDPOINT_URL = local.endpoint_url
        settings.AWS_REGION = local.region
        settings.COUNTERS_TABLE = "gone"
        store = get_store()
        store.ensure_table()
        assert store.counter_names() == []
    # DynamoDB Local stopped: the same endpoint that answered a moment ago no longer does.
    with pytest.raises(StoreUnavailable) as raised:
        store.counter_names()
    assert not isinstance(raised.value, StoreMisconfigured)
    assert "try again shortly" in raised.value.detail


def test_a_wrong_region_finds_no_table_and_says_to_check_aws_region(store, settings, process_runtime):
    # DynamoDB Local keeps a database per region (as DynamoDB keeps tables per region).
    assert store.counter_names() == []
    settings.AWS_REGION = "eu-central-1" if settings.AWS_REGION != "eu-central-1" else "us-west-2"
    error = misconfigured_store_error()
    assert error.detail == misconfigured.NO_TABLE and "AWS_REGION" in error.detail
    assert "region eu-central-1" in error.where or "region us-west-2" in error.where


@pytest.mark.parametrize(
    "code", ["UnrecognizedClientException", "InvalidSignatureException", "AccessDeniedException"]
)
def test_refused_credentials_are_a_configuration_error(code):
    refused = ClientError({"Error": {"Code": code, "Message": "refused"}}, "GetItem")
    found = misconfigured.misconfiguration(refused, None)
    assert isinstance(found, StoreMisconfigured)
    assert code in found.detail and "AWS_REGION" in found.detail and "AWS_ACCESS_KEY_ID" in found.detail


def test_throttling_stays_an_outage():
    throttled = ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "GetItem")
    assert misconfigured.misconfiguration(throttled, None) is None


@pytest.mark.django_db
def test_a_page_says_what_to_fix_instead_of_promising_to_catch_up(no_credentials):
    page = Client(
        HTTP_USER_AGENT="Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
    ).get("/")
    text = page.content.decode()
    assert page.status_code == 200
    assert f"Counts are unavailable. {misconfigured.NO_CREDENTIALS}" in text
    assert "will catch up" not in text
