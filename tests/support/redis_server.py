"""A throwaway redis-server of a test's own on a free loopback port, to kill and restart at will."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from pathlib import Path

import redis

from tests.support.processes import free_port

READY_TIMEOUT = 15


def redis_server_binary() -> str:
    """Path of redis-server; scripts/dev.sh installs the Debian package for the tests."""
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not Path(binary).exists():
        raise RuntimeError("redis-server is missing: run scripts/dev.sh setup")
    return binary


class RedisServer:
    """redis-server on 127.0.0.1:<port> without persistence; `kill` and `start` keep the port."""

    def __init__(self, log_path: Path, port: int | None = None) -> None:
        self.log_path = log_path
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        """Start the server and wait until it answers PING."""
        log = self.log_path.open("ab")
        command = [redis_server_binary(), "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=1)
        deadline = time.monotonic() + READY_TIMEOUT
        try:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"redis-server exited; log:\n{self.log_text()}")
                try:
                    if client.ping():
                        return self
                except redis.RedisError:
                    time.sleep(0.1)
        finally:
            client.close()
        self.kill()
        raise RuntimeError(f"redis-server did not answer within {READY_TIMEOUT}s")

    def kill(self) -> None:
        """SIGKILL, as a crash would: no goodbye to connected clients."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def pause(self) -> None:
        """SIGSTOP: connections stay open and every command hangs, as on a stalled server or network."""
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT: the paused server answers again."""
        self.process.send_signal(signal.SIGCONT)

    def log_text(self) -> str:
        """The last lines redis-server printed."""
        return self.log_path.read_text(errors="replace")[-2000:] if self.log_path.exists() else ""

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.resume()  # a stopped process ignores SIGKILL's wait until it runs again
        self.kill()
