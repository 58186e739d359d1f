"""Start and stop real site processes (daphne, uvicorn, granian, runserver) on free loopback ports."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import requests

PROJECT_DIR = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 60


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def occupy_port(port: int) -> socket.socket:
    """A socket listening on `port` and never answering, as another program that took the port."""
    squatter = socket.socket()
    squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past a killed server's TIME_WAIT
    squatter.bind(("127.0.0.1", port))
    squatter.listen()
    return squatter


def run_at_once(script: str, *args: str, count: int, timeout: float = 90) -> list[str]:
    """Run `python -c script *args` in `count` processes at once; their outputs (each must exit 0)."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_DIR)}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", script, *args],
            cwd=PROJECT_DIR,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    outputs = [process.communicate(timeout=timeout) for process in processes]
    assert [process.returncode for process in processes] == [0] * count, outputs
    return [stdout for stdout, _ in outputs]


def site_environment(**overrides: str) -> dict[str, str]:
    """The environment a site process runs with: production-like, DEBUG off unless asked."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "counters_site.settings",
            "DJANGO_DEBUG": "false",
            "DJANGO_SECRET_KEY": "test-site-secret-key-0123456789abcdefghijklmnopqrstuvwxyz",
            "PYTHONUNBUFFERED": "1",
            # Test clients are scripts and headless browsers, which the site counts as bots: tests of
            # the bot split turn it on, the others count their requests as views of people.
            "COUNTERS_COUNT_BOTS_APART": "false",
            # Every worker would read the table's stream (the default): tests of other writers turn it
            # back on (`worker`) or drop it to run the default; the rest spare the store its calls.
            "COUNTERS_STREAM_READER": "off",
        }
    )
    env.update(overrides)
    return env


class SiteProcess:
    """A real site on 127.0.0.1:<port>, served by daphne (default), uvicorn, granian or `runserver`.

    By default the demo site of this repository; `python`, `cwd` and `application` serve another
    project (e.g. one that installed the app's wheel in a virtualenv of its own).
    """

    def __init__(
        self,
        *,
        env: Mapping[str, str],
        log_path: Path,
        server: str = "daphne",
        quiet: bool = False,
        port: int | None = None,
        python: str = sys.executable,
        cwd: Path = PROJECT_DIR,
        application: str = "counters_site.asgi:application",
        ready_path: str = "/api/counters",
    ) -> None:
        self.env = dict(env)
        self.log_path = log_path
        self.server = server
        self.quiet = quiet
        self.port = port or free_port()
        self.python = python
        self.cwd = cwd
        self.application = application
        # Answered below 500 once the site is up (another path for a site whose store is down on purpose).
        self.ready_path = ready_path
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Base URL, without a trailing slash."""
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        """The command line that serves the site (without an access log when `quiet`, as deployed)."""
        if self.server == "runserver":
            return [self.python, "manage.py", "runserver", f"127.0.0.1:{self.port}", "--noreload"]
        host, port = "127.0.0.1", str(self.port)
        if self.server == "uvicorn":
            # Channels routes no `lifespan` scope; uvicorn[standard] picks uvloop, httptools, websockets.
            quiet = ["--no-access-log"] if self.quiet else []
            options = ["--host", host, "--port", port, "--lifespan", "off", *quiet]
            return [self.python, "-m", "uvicorn", *options, self.application]
        if self.server == "granian":
            # `asginl`: ASGI without lifespan, which Channels does not route; one worker process.
            loud = [] if self.quiet else ["--access-log"]
            options = ["--interface", "asginl", "--host", host, "--port", port, "--workers", "1", *loud]
            return [self.python, "-m", "granian", *options, self.application]
        quiet = ["-v", "0"] if self.quiet else []
        return [self.python, "-m", "daphne", "-b", host, "-p", port, *quiet, self.application]

    def pids(self) -> list[int]:
        """The server's process and every process it started (a server may serve from child workers)."""
        if self.process is None:
            return []
        found, queue = [], [self.process.pid]
        while queue:
            pid = queue.pop()
            found.append(pid)
            for task in Path(f"/proc/{pid}/task").glob("*/children"):
                try:
                    queue.extend(int(child) for child in task.read_text().split())
                except OSError:
                    continue
        return found

    def migrate(self) -> None:
        """Create the SQLite schema the site's sessions and admin need."""
        subprocess.run(
            [self.python, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=self.cwd,
            env=self.env,
            check=True,
        )

    def start(self) -> SiteProcess:
        """Start the server and wait until it answers HTTP."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            self.command(), cwd=self.cwd, env=self.env, stdout=log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"site exited early; log:\n{self.log_text()[-3000:]}")
            try:
                if (
                    requests.get(f"{self.url}{self.ready_path}", timeout=5, allow_redirects=False).status_code
                    < 500
                ):
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"site did not answer within {READY_TIMEOUT}s; log:\n{self.log_text()[-3000:]}")

    def stop(self, timeout: float = 10) -> None:
        """Stop the server: SIGTERM, then SIGKILL if it lingers."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout)

    def log_text(self) -> str:
        """Everything the server printed."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def __enter__(self) -> SiteProcess:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
