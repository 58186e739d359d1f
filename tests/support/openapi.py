"""docs/openapi.yaml for tests: its operations, schema checks of answers, and the routes it must cover."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
import yaml
from django.urls import URLPattern, URLResolver, get_resolver
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.support.processes import PROJECT_DIR

SPEC_PATH = PROJECT_DIR / "docs" / "openapi.yaml"
SPEC_URI = "urn:live-counters:openapi"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# Routes outside the JSON API and the counted pages: Django's admin has its own documentation.
UNDOCUMENTED_PREFIXES = ("/admin/",)

# Documented operations the implementation does not have yet, as (METHOD, path). Each is a strict
# xfail: once the operation exists its test passes, the xfail turns into a failure, and the entry
# must be removed from here. Empty this list as the parts land.
PENDING_OPERATIONS: list[tuple[str, str]] = []


@dataclass(frozen=True)
class Operation:
    """One documented method on one path."""

    method: str
    path: str
    spec: dict[str, Any]

    @property
    def id(self) -> str:
        """The operationId."""
        return self.spec["operationId"]

    @property
    def pending(self) -> bool:
        """Whether the implementation is still to come."""
        return (self.method, self.path) in PENDING_OPERATIONS

    def url(self, **params: str) -> str:
        """The path with its parameters filled in."""
        return re.sub(r"\{(\w+)\}", lambda match: params[match[1]], self.path)

    def response_spec(self, status: int) -> dict[str, Any] | None:
        """The documented answer for `status`, with $refs followed, or None if undocumented."""
        found = self.spec["responses"].get(str(status))
        return resolve(found) if found is not None else None


@cache
def spec() -> dict[str, Any]:
    """The OpenAPI document."""
    return yaml.safe_load(SPEC_PATH.read_text())


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local `$ref` (one level, as responses and parameters use them)."""
    ref = node.get("$ref")
    if ref is None:
        return node
    target: Any = spec()
    for part in ref.removeprefix("#/").split("/"):
        target = target[part]
    return resolve(target)


def operations() -> list[Operation]:
    """Every documented operation."""
    return [
        Operation(method.upper(), path, item[method])
        for path, item in spec()["paths"].items()
        for method in METHODS
        if method in item
    ]


def operation(operation_id: str) -> Operation:
    """One operation by its operationId."""
    return next(op for op in operations() if op.id == operation_id)


def as_params(ops: list[Operation]) -> list[Any]:
    """pytest params for `ops`, the pending ones as strict xfails."""
    return [
        pytest.param(
            op,
            id=f"{op.method} {op.path}",
            marks=[pytest.mark.xfail(strict=True, reason="not implemented yet")] if op.pending else [],
        )
        for op in ops
    ]


@cache
def _registry() -> Registry:
    return Registry().with_resource(
        SPEC_URI, Resource.from_contents(spec(), default_specification=DRAFT202012)
    )


def schema_errors(schema: dict[str, Any], instance: Any) -> list[str]:
    """Messages of every way `instance` breaks `schema` (which may $ref into the document)."""
    wrapped = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{SPEC_URI}-check",
        **schema,
    }
    wrapped = _rebase(wrapped)
    validator = Draft202012Validator(wrapped, registry=_registry())
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(instance)
    ]


def _rebase(node: Any) -> Any:
    """Point local `#/...` references at the document in the registry."""
    if isinstance(node, dict):
        return {
            key: (f"{SPEC_URI}{value}" if key == "$ref" and value.startswith("#/") else _rebase(value))
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_rebase(item) for item in node]
    return node


def answer_problems(op: Operation, response) -> list[str]:
    """How a Django or requests response departs from what the document says `op` answers."""
    status = response.status_code
    documented = op.response_spec(status)
    if documented is None:
        return [f"{op.method} {op.path} answered {status}, which is not documented"]
    content = documented.get("content", {})
    content_type = response.headers.get("Content-Type", "").split(";")[0].strip()
    if not content:
        return []
    if content_type not in content:
        return [
            f"{op.method} {op.path} {status}: content type {content_type!r}, documented {sorted(content)}"
        ]
    problems = []
    if content_type == "application/json":
        problems = schema_errors(content[content_type].get("schema", {}), response.json())
    for header in documented.get("headers", {}):
        if header not in response.headers:
            problems.append(f"{op.method} {op.path} {status}: header {header} missing")
    return problems


def route_paths() -> list[str]:
    """Every URL route of the site in the document's notation (`/api/counters/{name}`)."""
    return sorted(
        path for path in _walk(get_resolver().url_patterns, "") if not path.startswith(UNDOCUMENTED_PREFIXES)
    )


def _walk(patterns: list, prefix: str) -> list[str]:
    paths = []
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            paths.extend(_walk(entry.url_patterns, route))
        elif isinstance(entry, URLPattern):
            paths.append("/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route))
    return paths
