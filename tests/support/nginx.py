"""The Debian nginx in front of site workers, configured by deploy/nginx.conf.template itself."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.support.processes import PROJECT_DIR, free_port

TEMPLATE = PROJECT_DIR / "deploy" / "nginx.conf.template"
PLACEHOLDER = re.compile(r"\$\{(COUNTERS_[A-Z_]+)\}")
READY_TIMEOUT = 15

# nginx's own part of the configuration (the `main` context Debian's /etc/nginx/nginx.conf holds):
# everything it writes stays in the temporary prefix, and the operator's file is included as is.
MAIN_CONF = """\
{user}worker_processes {worker_processes};
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {prefix}/counters.conf;
}}
"""


def nginx_binary() -> str:
    """Path of nginx; scripts/dev.sh installs the Debian package for the tests."""
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(binary).exists():
        raise RuntimeError("nginx is missing: run scripts/dev.sh setup")
    return binary


def render(template: str, values: Mapping[str, str]) -> str:
    """The template with every ${COUNTERS_...} placeholder filled, as envsubst would fill it."""
    missing = set(PLACEHOLDER.findall(template)) - set(values)
    if missing:
        raise KeyError(f"no value for {sorted(missing)}")
    return PLACEHOLDER.sub(lambda match: values[match[1]], template)


# What deploy/nginx.conf.template asks of every server line: skip a worker that refused a connection
# for one second, not nginx's default ten.
SERVER_PARAMETERS = "max_fails=1 fail_timeout=1s"


def servers(addresses: Sequence[str]) -> str:
    """An upstream's `server` lines for these host:port addresses, as the template asks for them."""
    return " ".join(f"server {address} {SERVER_PARAMETERS};" for address in addresses)


def site_conf(
    *, listen: str, server_name: str, upstreams: Sequence[str], socket_upstreams: Sequence[str] | None = None
) -> str:
    """deploy/nginx.conf.template for these workers (host:port; sockets on `upstreams` unless given apart)."""
    values = {
        "COUNTERS_LISTEN": listen,
        "COUNTERS_SERVER_NAME": server_name,
        "COUNTERS_WORKERS": servers(upstreams),
        "COUNTERS_SOCKET_WORKERS": servers(upstreams if socket_upstreams is None else socket_upstreams),
    }
    return render(TEMPLATE.read_text(), values)


class Nginx:
    """nginx on 127.0.0.1:<port> for `upstreams` (`/ws/`: `socket_upstreams` if given); files in a tempdir."""

    def __init__(
        self,
        upstreams: Sequence[str],
        *,
        socket_upstreams: Sequence[str] | None = None,
        port: int | None = None,
        worker_processes: int = 1,
    ) -> None:
        self.upstreams = list(upstreams)
        self.socket_upstreams = None if socket_upstreams is None else list(socket_upstreams)
        self.port = port or free_port()
        self.worker_processes = worker_processes
        self.prefix: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        """Base URL, without a trailing slash."""
        return f"http://127.0.0.1:{self.port}"

    def write_config(self, prefix: Path) -> Path:
        """Write the operator's file and nginx's main file into `prefix`; the main file's path."""
        (prefix / "counters.conf").write_text(
            site_conf(
                listen=f"127.0.0.1:{self.port}",
                server_name="127.0.0.1",
                upstreams=self.upstreams,
                socket_upstreams=self.socket_upstreams,
            )
        )
        # Started as root, nginx runs its workers as `nobody`, who could not write to this directory.
        user = "user root;\n" if os.geteuid() == 0 else ""
        main = prefix / "nginx.conf"
        main.write_text(MAIN_CONF.format(user=user, worker_processes=self.worker_processes, prefix=prefix))
        return main

    def start(self) -> Nginx:
        """Start nginx (daemon off) and wait until it answers."""
        self._tmp = tempfile.TemporaryDirectory(prefix="counters-nginx-")
        self.prefix = Path(self._tmp.name)
        main = self.write_config(self.prefix)
        command = [
            nginx_binary(),
            "-p",
            str(self.prefix),
            "-e",
            str(self.prefix / "error.log"),
            "-c",
            str(main),
        ]
        checked = subprocess.run([*command, "-t", "-q"], capture_output=True, text=True)
        if checked.returncode:
            self.stop()
            raise RuntimeError(f"nginx refused the configuration:\n{checked.stderr}")
        self.process = subprocess.Popen(
            [*command, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log = self.error_log()
                self.stop()
                raise RuntimeError(f"nginx exited early; error log:\n{log}")
            # A connection, not a request: a request would reach the workers (and might count).
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=2).close()
                return self
            except OSError:
                time.sleep(0.1)
        log = self.error_log()
        self.stop()
        raise RuntimeError(f"nginx did not answer within {READY_TIMEOUT}s; error log:\n{log}")

    def worker_pids(self) -> list[int]:
        """The master's and its worker processes' ids (for CPU accounting)."""
        if self.process is None:
            return []
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [self.process.pid, *(int(pid) for pid in children.read_text().split())]

    def error_log(self) -> str:
        """What nginx logged as errors."""
        log = self.prefix / "error.log" if self.prefix else None
        return log.read_text(errors="replace") if log and log.exists() else ""

    def stop(self, timeout: float = 10) -> None:
        """Stop nginx (SIGTERM, then SIGKILL if it lingers) and remove its files."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # a fast shutdown: open websockets are closed, not waited for
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> Nginx:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
