"""Dashboard sockets held by a Node process on the `ws` package (bench/ws_load.mjs), driven from here.

A Python client costs about as much CPU per socket as the server it measures; a Node one a fraction
of that, and its CPU is reported apart (process.cpuUsage), so a fan-out figure shows what the server
did rather than what its clients took from it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "ws_load.mjs"
CONNECT_AT_ONCE = 50


@dataclass(frozen=True)
class SocketSeen:
    """What one socket ended on: the newest (value, version, arrival) of each watched counter, and its
    update frames (how many, when the last came, the most in any one second)."""

    known: dict[str, tuple[int, int, float]]
    frames: int
    last: float | None
    peak: int

    @classmethod
    def of(cls, reported: dict) -> SocketSeen:
        """One socket as the Node process reported it."""
        known = {name: tuple(state) for name, state in reported["known"].items()}
        return cls(known, reported["frames"], reported["last"], reported["peak"])

    def holds(self, final: dict[str, tuple[int, int]]) -> bool:
        """Whether the socket's newest states are `final` ({name: (value, version)})."""
        return all(tuple(self.known.get(name, ())[:2]) == tuple(state) for name, state in final.items())


class NodeClients:
    """`count` sockets over `urls` in one Node process; ready once every socket has its snapshot."""

    def __init__(
        self,
        urls: list[str],
        origin: str,
        count: int,
        *,
        watch: list[str],
        cookies: list[str] | None = None,
        timeout: float = 300,
    ) -> None:
        node = shutil.which("node")
        if node is None:
            raise RuntimeError("The Node load generator needs `node` on PATH.")
        settings = {"urls": urls, "origin": origin, "count": count, "cookies": cookies, "watch": watch,
                    "at_once": CONNECT_AT_ONCE, "timeout": timeout}  # fmt: skip
        self.process = subprocess.Popen(
            [node, str(SCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self._send(settings)
        ready = self._answer("ready")
        self.connect_seconds: float = ready["connect_seconds"]
        if ready["sockets"] != count:
            self.close()
            raise RuntimeError(f"Only {ready['sockets']} of {count} sockets had their snapshot.")

    def cpu_seconds(self) -> float:
        """CPU seconds the Node process used so far, as it measures itself."""
        self._send({"cmd": "cpu"})
        return self._answer("cpu")["cpu_seconds"]

    def settle(self, final: dict[str, tuple[int, int]], timeout: float = 60) -> list[SocketSeen]:
        """Wait (at most `timeout`) until every socket holds `final`; what each socket ended on."""
        self._send({"cmd": "settle", "final": final, "timeout": timeout})
        report = self._answer("report")
        return [SocketSeen.of(one) for one in report["sockets"]]

    def close(self) -> None:
        """Close every socket and end the process."""
        if self.process.poll() is None:
            try:
                self._send({"cmd": "close"})
                self.process.wait(30)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> NodeClients:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def _answer(self, event: str) -> dict:
        line = self.process.stdout.readline()
        if not line:
            code = self.process.wait()
            raise RuntimeError(f"The Node load generator ended before its {event!r} (exit {code}).")
        message = json.loads(line)
        if message.get("event") != event:
            raise RuntimeError(f"The Node load generator said {message!r}, not {event!r}.")
        return message
