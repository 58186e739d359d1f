"""docs/openapi.yaml against the implementation: schemathesis, as any client would run it, on a live site.

The site is a real daphne on DynamoDB Local with the demo data; schemathesis runs every phase
(examples, coverage, fuzzing, stateful) with the checks of tests/api/schemathesis.toml and ours
(tests/support/schemathesis_checks.py: no refused request changes a total, every operation reaches
its logic). It checks conformance to whatever the document says, so fields and paths added to it
later are checked as they are added.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.urls import URLPattern, URLResolver, get_resolver

from tests.support.processes import PROJECT_DIR, SiteProcess
from tests.support.reliability import csrf_session
from tests.support.site import site_env_for

SPEC = PROJECT_DIR / "docs" / "openapi.yaml"
CONFIG = Path(__file__).with_name("schemathesis.toml")
CHECKS_MODULE = "tests.support.schemathesis_checks"
# Seconds: a run takes about 45 s on a quiet machine and up to 3 minutes beside the parallel suite.
RUN_TIMEOUT = 600
# Routes outside the JSON API and the counted pages: Django's admin has its own documentation, and
# /metrics is Prometheus' text format behind a token (docs/operations.md).
UNDOCUMENTED_PREFIXES = ("/admin/", "/metrics")


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


def test_every_route_is_documented():
    documented = set(yaml.safe_load(SPEC.read_text())["paths"])
    assert set(route_paths()) - documented == set()


@pytest.fixture
def site(demo_store, dynamodb_local, tmp_path):
    """A real daphne site on the demo data; no vote rate limit, so fuzzing is never a 429 in a row."""
    env = site_env_for(demo_store, dynamodb_local, tmp_path, COUNTERS_VOTE_RATE="0")
    with SiteProcess(env=env, log_path=tmp_path / "site.log") as running:
        yield running


def run_schemathesis(url: str, token: str, report: Path) -> subprocess.CompletedProcess[str]:
    """`schemathesis run docs/openapi.yaml` against `url`, sending the CSRF cookie and header as pages do."""
    env = {**os.environ, "SCHEMATHESIS_HOOKS": CHECKS_MODULE, "PYTHONPATH": str(PROJECT_DIR)}
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(CONFIG),
        "--no-color",
        "run",
        str(SPEC),
        "--url",
        url,
        "--header",
        f"X-CSRFToken: {token}",
        "--header",
        f"Cookie: csrftoken={token}",
        "--report",
        "json",
        "--report-json-path",
        str(report),
    ]
    return subprocess.run(
        command, cwd=report.parent, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT
    )


@pytest.mark.processes
@pytest.mark.timeout(RUN_TIMEOUT + 120)
def test_schemathesis_finds_nothing_on_a_live_site(site, demo_store, tmp_path):
    token = csrf_session(site.url).cookies["csrftoken"]
    before = {state.name: state.value for state in demo_store.list_counters()}

    result = run_schemathesis(site.url, token, tmp_path / "report.json")

    summary = result.stdout[-6000:]
    assert result.returncode == 0, f"{summary}\n{result.stderr[-3000:]}"
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["failures"] == [] and report["errors"] == []
    assert {name: phase["status"] for name, phase in report["phases"].items()} == {
        "examples": "success",
        "coverage": "success",
        "fuzzing": "success",
        "stateful": "success",
    }, summary
    operations = report["operations"]
    assert operations["tested"] == operations["selected"] >= 11
    # Every operation but the staff-only poll control and talk opening (anonymous: 403) and a talk's open
    # poll (no talk in the demo data), left out in schemathesis.toml.
    assert operations["total"] - operations["selected"] == 3
    assert report["test_cases"]["generated"] > 300
    print(f"{report['test_cases']['generated']} cases in {report['running_time']:.0f} s")
    # The run counted views and votes (it reached the logic): totals moved, and views only upwards.
    after = demo_store.list_counters()
    assert {state.name: state.value for state in after} != before
    assert all(state.value >= before[state.name] for state in after if state.kind == "views")
    assert "Traceback" not in site.log_text()
