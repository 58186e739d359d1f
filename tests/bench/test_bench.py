"""The benchmark harness runs end to end in tiny bounded runs and writes well-formed results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import plan
from bench.measure import percentile
from bench.scenarios.profile import summarise_stacks
from tests.support.groups import LOADS_THE_MACHINE
from tests.support.processes import PROJECT_DIR

RUN_TIMEOUT = 600  # one `python -m bench ... --quick` run
# Bench runs take turns, each bounded by its run's own timeout with room to start and check it.
BENCH_RUNS = [LOADS_THE_MACHINE, pytest.mark.timeout(RUN_TIMEOUT + 120)]
pytestmark = BENCH_RUNS


def run_bench(tmp_path: Path, *names: str) -> dict:
    """Run `python -m bench <names> --quick` into tmp_path and return its JSON results."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    done = subprocess.run(
        [sys.executable, "-m", "bench", *names, "--quick", "--results-dir", str(tmp_path)],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    name = "-".join(names) + "-quick"
    assert (tmp_path / f"{name}.md").read_text().startswith(f"# Benchmark `{name}`")
    return json.loads((tmp_path / f"{name}.json").read_text())


def assert_load_rows(rows: list[dict], paths: set[str], concurrencies=(1, 8, 32)) -> None:
    """Every path ran at each C without errors, with ordered percentiles and a throughput."""
    expected = {(path, concurrency) for path in paths for concurrency in concurrencies}
    assert {(row["path"], row["concurrency"]) for row in rows} == expected
    for row in rows:
        assert row["errors"] == 0 and row["requests"] == row["ok"] > 0
        assert 0 < row["p50_ms"] <= row["p99_ms"]
        assert row["per_second"] > 0
        assert set(row["cpu_seconds"]) >= {"load generator + bench", "DynamoDB Local"}


def assert_counted_as_answered(checks: dict) -> None:
    """The counter grew by exactly the requests the site answered 2xx, and some were."""
    assert checks["counted"] == checks["answered_2xx"] > 0, checks


@pytest.mark.processes
def test_store_run_is_well_formed_and_exact(tmp_path):
    results = run_bench(tmp_path, "store")
    store = results["sections"]["store"]
    assert_load_rows(store["rows"], {"raw UpdateItem ADD"})
    # The numbers it measured, not its own verdict: the total grew by exactly the calls acknowledged.
    checks = store["checks"]
    assert checks["counted"] == checks["acknowledged"] == sum(row["ok"] for row in store["rows"]) > 0
    assert len(results["load_average_before"]) == 3


@pytest.mark.processes
def test_site_runs_count_every_acknowledged_request(tmp_path):
    results = run_bench(tmp_path, "views", "exactness", "cost", "votes", "before", "fanout", "workers")
    sections = results["sections"]
    assert list(sections) == ["views", "workers", "votes", "before", "cost", "exactness", "fanout"]
    assert_load_rows(sections["views"]["rows"], {"POST /api/views/<slug>", "GET /pages/<slug>/"})
    assert all(row["vs_store_limit"] > 0 < row["store_limit_per_second"] for row in sections["views"]["rows"])
    assert_counted_as_answered(sections["views"]["checks"])
    assert all(0 < row["store_writes_per_view"] <= 1 for row in sections["views"]["rows"])
    # The site as it was before, from git, loaded alike: both sides ran and counted every request.
    before = sections["before"]
    assert before["available"] is True, before.get("detail")
    assert {row["path"].rsplit(", ", 1)[1] for row in before["rows"]} == {"before", "now"}
    assert all(ratio["now_vs_before_per_second"] > 0 for ratio in before["ratios"])
    answered, counted = before["checks"]["answered_2xx"], before["checks"]["counted"]
    assert counted == answered and all(answered.values()), before["checks"]
    # Two workers sharing Redis, through nginx and direct: their CPU summed as the site's, every beacon
    # counted; nginx's CPU apart.
    workers = sections["workers"]
    assert workers["available"] is True, workers.get("detail")
    paths = {"POST /api/views/<slug>, 2 workers behind nginx", "POST /api/views/<slug>, 2 workers"}
    assert_load_rows(workers["rows"], paths, concurrencies=(8, 32))
    assert all(row["cpu_seconds"]["site"] > 0 for row in workers["rows"])
    assert {"nginx" in row["cpu_seconds"] for row in workers["rows"]} == {True, False}
    assert_counted_as_answered(workers["checks"])
    *sites, naive = sections["exactness"]["rows"]
    assert [site["concurrency"] for site in sites] == [8, 32]
    for site in sites:
        assert site["acknowledged"] == site["final_total"] == site["requests"] > 0
        assert site["lost"] == site["doubled"] == 0
    assert naive["final_total"] + naive["lost"] - naive["doubled"] == naive["acknowledged"]
    assert sections["cost"]["checks"]["all_200"] is True
    assert {row["samples"] for row in sections["cost"]["rows"]} == {40}
    # Votes and fan-out ran for real against the site: every vote counted, every client converged.
    assert sections["votes"]["available"] is True and sections["votes"]["rows"]
    assert_counted_as_answered(sections["votes"]["checks"])
    fanout = sections["fanout"]
    assert fanout["available"] is True, fanout.get("detail")
    assert fanout["figure"]["converged"] == fanout["figure"]["clients"] > 0
    split = fanout["figure"]["split"]
    assert split["topology"] == "split" and split["converged"] == split["clients"] > 0
    # Under daphne every socket took each frame's bytes as encoded once, and every client read them all.
    hand_out = fanout["figure"]["hand_out"]
    assert hand_out["direct"]["direct_share"] == 1.0 and hand_out["send"]["direct_share"] == 0.0
    assert hand_out["direct"]["all_read"] and hand_out["send"]["all_read"] and hand_out["frames_in_order"]


@pytest.mark.processes
def test_servers_run_the_same_site_side_by_side_and_count_every_beacon(tmp_path):
    section = run_bench(tmp_path, "servers")["sections"]["servers"]
    # The project pins all three; each served beacons at every C next to its own store baseline.
    assert section["servers"] == ["daphne", "uvicorn", "granian"] and section["missing"] == []
    assert_load_rows(section["rows"], {f"POST /api/views/<slug>, {server}" for server in section["servers"]})
    assert all(row["vs_store_limit"] > 0 and row["site_cpu_ms_per_request"] > 0 for row in section["rows"])
    assert_counted_as_answered(section["checks"])


def test_plan_keeps_the_suite_order():
    assert plan(["exactness", "views"]) == ["views", "exactness"]
    assert plan(["all"]) == [
        "store", "views", "servers", "beacon", "workers", "votes", "before", "cost", "exactness",
        "fanout", "streams", "room", "profile",
    ]  # fmt: skip


def test_percentile_is_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([], 0.5) == 0.0


def test_profile_summary_splits_samples_by_layer():
    lines = [
        "<module> (daphne/cli.py);view_record (counters/services/counters.py);"
        "_make_api_call (botocore/client.py) 3",
        "<module> (daphne/cli.py);select (selectors.py) 1",
    ]
    summary = summarise_stacks(lines)
    assert summary["samples"] == 4
    assert dict(summary["self_percent_by_layer"]) == {
        "boto3/botocore (build, sign, parse)": 75.0,
        "other": 25.0,
    }
    app_functions = dict(summary["inclusive_percent_app_functions"])
    assert app_functions == {"view_record (counters/services/counters.py)": 75.0}


@pytest.mark.processes
def test_beacon_run_measures_the_site_beacon_beside_django_and_the_floor(tmp_path):
    section = run_bench(tmp_path, "beacon")["sections"]["beacon"]
    labels = {"POST /bench/nothing (floor)", "POST /api/hit (site beacon)", "POST /api/views/<slug> (Django)"}
    assert_load_rows(section["rows"], {f"{label}, uvicorn" for label in labels})
    # The floor's few quick requests may cost the site less than the 10 ms its CPU time is read to.
    counting = [row for row in section["rows"] if "floor" not in row["path"]]
    assert all(row["site_cpu_ms_per_request"] > 0 for row in counting)
    checks = section["checks"]
    assert checks["counted"] == checks["answered_2xx"] and all(checks["counted"].values()), checks


@pytest.mark.processes
def test_streams_run_reaches_the_socket_with_every_outside_write(tmp_path):
    section = run_bench(tmp_path, "streams")["sections"]["streams"]
    assert section["available"] is True, section.get("detail")
    figure = section["figure"]
    assert figure["outside_writes"] > 0 and figure["outside_missing"] == 0
    assert figure["socket_final"] == figure["final_written"] and figure["never_went_back"] is True
    assert 0 < figure["outside"]["p50_ms"] <= figure["outside"]["p99_ms"]
