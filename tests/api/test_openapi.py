"""docs/openapi.yaml against the implementation: every operation exists and answers as documented."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from jsonschema import Draft202012Validator

from tests.support.openapi import (
    PENDING_OPERATIONS,
    Operation,
    answer_problems,
    as_params,
    operations,
    resolve,
    route_paths,
    schema_errors,
    spec,
)

# A valid request of each operation on the demo data.
EXAMPLES = {
    "dashboard": {"params": {}},
    "dashboardPage": {"params": {}, "status": 302},
    "page": {"params": {"slug": "docs"}},
    "counterList": {"params": {}},
    "counterDetail": {"params": {"name": "language.python"}},
    "counterHistory": {"params": {"name": "docs"}, "query": {"window": "48h"}},
    "counterHistoryCsv": {"params": {"name": "docs"}, "query": {"window": "48h"}},
    "pollResultsCsv": {"params": {"poll": "language"}},
    "badge": {"params": {"name": "docs"}},
    "viewBeacon": {"params": {"slug": "docs"}},
    "pollList": {"params": {}},
    "voteCast": {"params": {"poll": "language"}, "json": {"option": "python"}},
    "voteRetract": {"params": {"poll": "language"}},
    "voteStatus": {"params": {"poll": "language"}},
}
# Requests of each operation that must be refused: (status, path params, JSON body).
REFUSALS = {
    "page": [(404, {"slug": "no-such-page"}, None)],
    "counterDetail": [(404, {"name": "no-such-counter"}, None), (400, {"name": "UPPER"}, None)],
    "counterHistory": [(404, {"name": "no-such-counter"}, None), (400, {"name": "UPPER"}, None)],
    "viewBeacon": [(404, {"slug": "no-such-page"}, None), (400, {"slug": "UPPER"}, None)],
    "counterHistoryCsv": [(404, {"name": "no-such-counter"}, None), (400, {"name": "UPPER"}, None)],
    "pollResultsCsv": [(404, {"poll": "no-such-poll"}, None), (400, {"poll": "UPPER"}, None)],
    "badge": [(404, {"name": "no-such-counter"}, None), (400, {"name": "UPPER"}, None)],
    # A 400 on an existing poll, so a missing route (404) cannot pass for it.
    "voteCast": [(400, {"poll": "language"}, {"option": "UPPER"})],
}
HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


@pytest.fixture
def browser(demo_store) -> Client:
    """A CSRF-checked client holding a token, as this site's pages do."""
    client = Client(enforce_csrf_checks=True)
    client.get("/pages/welcome/")
    client.defaults["HTTP_X_CSRFTOKEN"] = client.cookies["csrftoken"].value
    return client


def send(client: Client, method: str, url: str, *, query=None, body=None):
    """Send one request; a JSON body when given."""
    kwargs = {"content_type": "application/json", "data": json.dumps(body)} if body is not None else {}
    if query:
        url = f"{url}?{'&'.join(f'{key}={value}' for key, value in query.items())}"
    return client.generic(method, url, **kwargs)


def test_the_document_is_openapi_3_1_with_valid_schemas():
    document = spec()
    assert document["openapi"].startswith("3.1")
    for schema in document["components"]["schemas"].values():
        Draft202012Validator.check_schema(schema)
    ids = [op.id for op in operations()]
    assert len(ids) == len(set(ids)), "operationIds are unique"
    for op in operations():
        for status, answer in op.spec["responses"].items():
            assert "description" in resolve(answer), f"{op.method} {op.path} {status}"


def test_the_shape_check_catches_a_wrong_answer():
    counter = {"$ref": "#/components/schemas/Counter"}
    good = {
        "name": "docs",
        "kind": "views",
        "value": 1,
        "version": 1,
        "title": "",
        "description": "",
        "updated_at": None,
    }

    assert schema_errors(counter, good) == []
    assert schema_errors(counter, {**good, "version": "1"})
    assert schema_errors(counter, {key: value for key, value in good.items() if key != "kind"})
    assert schema_errors(counter, {**good, "name": "../etc"})


def test_every_route_is_documented():
    assert set(route_paths()) - set(spec()["paths"]) == set()


def test_every_operation_has_an_example():
    assert {op.id for op in operations()} == set(EXAMPLES)


def test_pending_operations_are_documented():
    documented = {(op.method, op.path) for op in operations()}
    assert set(PENDING_OPERATIONS) <= documented


@pytest.mark.parametrize("op", as_params(operations()))
def test_operation_answers_its_example_as_documented(browser, op: Operation):
    example = EXAMPLES[op.id]
    response = send(
        browser, op.method, op.url(**example["params"]), query=example.get("query"), body=example.get("json")
    )

    assert response.status_code == example.get("status", 200), response.content[:500]
    assert answer_problems(op, response) == []


@pytest.mark.parametrize("op", as_params([op for op in operations() if op.id in REFUSALS]))
def test_operation_refusals_are_documented(browser, demo_store, op: Operation):
    before = {state.name: state.value for state in demo_store.list_counters()}
    for status, params, body in REFUSALS[op.id]:
        response = send(browser, op.method, op.url(**params), body=body)
        assert response.status_code == status, (params, response.content[:300])
        assert answer_problems(op, response) == []
    assert {state.name: state.value for state in demo_store.list_counters()} == before


def paths_with_methods() -> list:
    """Each documented path with its operations, pending when every operation on it is."""
    by_path: dict[str, list[Operation]] = {}
    for op in operations():
        by_path.setdefault(op.path, []).append(op)
    return [
        pytest.param(
            ops,
            id=path,
            marks=[pytest.mark.xfail(strict=True, reason="not implemented yet")]
            if all(o.pending for o in ops)
            else [],
        )
        for path, ops in by_path.items()
    ]


@pytest.mark.parametrize("ops", paths_with_methods())
def test_undocumented_methods_are_a_documented_405(browser, demo_store, ops: list[Operation]):
    documented = {op.method for op in ops}
    example = EXAMPLES[ops[0].id]
    before = {state.name: state.value for state in demo_store.list_counters()}
    for method in set(HTTP_METHODS) - documented - ({"HEAD"} if "GET" in documented else set()):
        response = send(browser, method, ops[0].url(**example["params"]))
        assert response.status_code == 405, (method, response.content[:300])
        allowed = {m.strip() for m in response["Allow"].split(",")}
        assert documented <= allowed, method
        assert answer_problems(ops[0], response) == []
    assert {state.name: state.value for state in demo_store.list_counters()} == before
