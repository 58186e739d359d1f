"""The embedded store's supervisor, against real DynamoDB Local processes killed with SIGKILL."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from counters.embedded import dynamodb_local as local
from counters.embedded.supervisor import Supervisor
from tests.support.groups import RESTARTS_DYNAMODB
from tests.support.processes import PROJECT_DIR as BASE_DIR
from tests.support.processes import occupy_port, run_at_once
from tests.support.timing import wait_until
from tests.unit.embedded.test_dynamodb_local import TABLE, client, create_table, gone, instances

pytestmark = [pytest.mark.processes, RESTARTS_DYNAMODB]
HEAL_SECONDS = 10  # the promise: a dead instance answers again within this


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    """A data dir whose instances are all stopped afterwards."""
    path = (tmp_path / "data").resolve()
    yield path
    local.stop(path)
    for pid in instances(path / "dynamodb"):
        os.kill(pid, signal.SIGKILL)


class Moves:
    """Counts calls of a supervisor's hook (`on_moved`, `on_lost`)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1


def supervisor_for(data_dir: Path, moves: Moves) -> Supervisor:
    """A supervisor following the data dir's instance, its watchdog thread not started."""
    supervisor = Supervisor(data_dir=data_dir, base_dir=BASE_DIR, on_moved=moves, on_lost=Moves())
    supervisor.current = local.ensure_running(data_dir, base_dir=BASE_DIR)
    supervisor._seen_pid = supervisor.current.pid
    return supervisor


def kill(pid: int) -> None:
    """SIGKILL, as the OOM killer does, and wait until it is gone."""
    os.kill(pid, signal.SIGKILL)
    assert gone(pid)


def test_a_killed_instance_is_started_again_on_its_port_with_its_data(data_dir: Path) -> None:
    moves, lost = Moves(), Moves()
    first = local.ensure_running(data_dir, base_dir=BASE_DIR)
    create_table(client(first))
    client(first).put_item(TableName=TABLE, Item={"PK": {"S": "kept"}})
    supervisor = Supervisor(data_dir=data_dir, base_dir=BASE_DIR, on_moved=moves, on_lost=lost, interval=0.2)
    supervisor.watch(first)
    kill(first.pid)

    started = time.monotonic()
    wait_until(lambda: local.status(data_dir), "DynamoDB Local started again", timeout=HEAL_SECONDS, poll=0.1)
    back = local.status(data_dir)
    print(f"answering again {time.monotonic() - started:.1f} s after the kill")

    assert back.pid != first.pid
    assert back.endpoint_url == first.endpoint_url, "the same port, so no client needs rebuilding"
    assert moves.calls == 0
    assert lost.calls == 1, "open dashboards were told once"
    item = client(back).get_item(TableName=TABLE, Key={"PK": {"S": "kept"}}, ConsistentRead=True)
    assert "Item" in item
    assert instances(data_dir / "dynamodb") == [back.pid]


def test_several_processes_noticing_at_once_start_one_instance(data_dir: Path) -> None:
    first = local.ensure_running(data_dir, base_dir=BASE_DIR)
    kill(first.pid)
    script = (
        "import sys; from pathlib import Path; from counters.embedded.supervisor import Supervisor; "
        "s = Supervisor(data_dir=Path(sys.argv[1]), base_dir=Path(sys.argv[2]), "
        "on_moved=lambda: None, on_lost=lambda: None); "
        "print(s.check().pid)"
    )
    pids = {int(out) for out in run_at_once(script, str(data_dir), str(BASE_DIR), count=3)}

    assert len(pids) == 1
    assert instances(data_dir / "dynamodb") == list(pids)
    assert local.status(data_dir).endpoint_url == first.endpoint_url


def test_an_instance_stopped_on_purpose_stays_stopped_and_a_new_one_is_followed(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    moves = Moves()
    supervisor = supervisor_for(data_dir, moves)
    old_port = int(supervisor.current.endpoint_url.rsplit(":", 1)[1])

    assert local.stop(data_dir)
    assert supervisor.check() is None
    assert instances(data_dir / "dynamodb") == [], "an operator's stop is respected"

    # The operator starts it again while something else holds the old port: it gets a new one.
    with monkeypatch.context() as patch:
        patch.setattr(local, "_port_free", lambda port: False)
        started = local.ensure_running(data_dir, base_dir=BASE_DIR)
    found = supervisor.check()

    assert started.endpoint_url != f"http://127.0.0.1:{old_port}"
    assert found == started
    assert supervisor.current == started
    assert moves.calls == 1, "the process rebuilds its clients for the new endpoint"
    assert supervisor.check() == started
    assert moves.calls == 1


def test_a_restart_decided_while_an_operator_stopped_it_leaves_it_stopped(data_dir: Path) -> None:
    supervisor = supervisor_for(data_dir, Moves())
    # The watchdog saw the process gone while `counters_local stop` was still stopping it: by the time
    # it holds the launcher's lock, the record says "stopped on purpose".
    assert local.stop(data_dir)

    assert supervisor._restart() is None
    assert instances(data_dir / "dynamodb") == []
    assert local.stopped_on_purpose(data_dir)


def test_a_restart_that_cannot_have_the_old_port_takes_another_and_says_so(data_dir: Path) -> None:
    moves = Moves()
    supervisor = supervisor_for(data_dir, moves)
    old = supervisor.current
    kill(old.pid)

    # Another program took the port meanwhile (if one holds it already, the restart cannot have it either).
    with contextlib.ExitStack() as squatting:
        with contextlib.suppress(OSError):
            squatting.enter_context(occupy_port(int(old.endpoint_url.rsplit(":", 1)[1])))
        found = supervisor.check()

    assert found is not None and found.endpoint_url != old.endpoint_url
    assert moves.calls == 1
    assert client(found).list_tables()["TableNames"] == []
    assert supervisor.restarts == 1


def test_a_port_someone_listens_on_is_not_free(data_dir: Path) -> None:
    running = local.ensure_running(data_dir, base_dir=BASE_DIR)
    port = int(running.endpoint_url.rsplit(":", 1)[1])

    assert not local._port_free(port)
    assert local.stop(data_dir)
    # Free again once the JVM's last thread is gone (its connections' TIME_WAIT is no bar).
    wait_until(lambda: local._port_free(port), "the stopped server's port to be free", timeout=5, poll=0.1)
    with occupy_port(port):
        assert not local._port_free(port)
