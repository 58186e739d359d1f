"""A loopback HTTP proxy between a site process and DynamoDB that injects faults on one DynamoDB operation.

For a site in another process (daphne, with a browser in front) only: in one process, botocore's own
`before-send` event does the same (tests/support/store_faults.py). What no TCP fault tool does is
tell one DynamoDB operation from another: the proxy reads each request whole and matches its
`X-Amz-Target` (e.g. `UpdateItem`, `TransactWriteItems`) against the rules armed by the test (first
match wins, each may be limited to `times` requests), and records every request with the action
taken. Actions:

- `forward`: pass the request on and the response back (the default when no rule matches);
- `lost_response`: pass the request on, let DynamoDB apply it, then close the site's connection
  without answering (the write happened, the caller cannot know);
- `delay`: wait `seconds`, then forward (a slow or hanging store);
- `error`: answer with a DynamoDB error body and status without forwarding (e.g. throttling).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from dataclasses import dataclass, field

from tests.support.fault_rules import Rule, Rules

RECV_SIZE = 65536
TARGET_PREFIX = "DynamoDB_20120810."


@dataclass
class HttpMessage:
    """One HTTP/1.1 message: head bytes up to the blank line, and the body."""

    head: bytes
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)

    def raw(self) -> bytes:
        """The message as it goes on the wire."""
        return self.head + self.body


class FaultProxy(Rules):
    """A TCP proxy on 127.0.0.1:<free port> in front of `upstream`; use as a context manager."""

    actions = frozenset({"forward", "lost_response", "delay", "error"})

    def __init__(self, upstream: tuple[str, int]) -> None:
        super().__init__()
        self.upstream = upstream
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self.port = 0

    @classmethod
    def for_endpoint(cls, endpoint_url: str) -> FaultProxy:
        """A proxy in front of an `http://host:port` endpoint."""
        host, port = endpoint_url.removeprefix("http://").rstrip("/").rsplit(":", 1)
        return cls((host, int(port)))

    @property
    def endpoint_url(self) -> str:
        """What the site uses as DYNAMODB_ENDPOINT_URL."""
        return f"http://127.0.0.1:{self.port}"

    # Life cycle ----------------------------------------------------------------------------------

    def start(self) -> FaultProxy:
        """Listen on a free loopback port and serve in background threads."""
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        self._listener = listener
        self.port = listener.getsockname()[1]
        threading.Thread(
            target=self._accept_loop, args=(listener,), name="faultproxy-accept", daemon=True
        ).start()
        return self

    def stop(self) -> None:
        """Stop listening and close every connection: the port is closed, as a dead store's is."""
        self._stopping.set()
        if self._listener is not None:
            _close(self._listener)
        with self._lock:
            connections, self._connections = list(self._connections), set()
        for conn in connections:
            _close(conn)

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # Serving -------------------------------------------------------------------------------------

    def _accept_loop(self, listener: socket.socket) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = listener.accept()
            except OSError:
                return
            self._track(client)
            threading.Thread(target=self._serve, args=(client,), name="faultproxy-conn", daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream: socket.socket | None = None
        try:
            client_reader = _Reader(client)
            while True:
                request = read_message(client_reader)
                if request is None:
                    return
                operation = request.headers.get("x-amz-target", "").removeprefix(TARGET_PREFIX)
                rule = self.take(operation, request.body.decode("utf-8", "replace"))
                action = rule.action if rule else "forward"
                if action == "error":
                    client.sendall(error_response(rule))
                    continue
                if action == "delay" and self._stopping.wait(rule.seconds):
                    return
                if upstream is None:
                    upstream = socket.create_connection(self.upstream, timeout=30)
                    self._track(upstream)
                    upstream_reader = _Reader(upstream)
                upstream.sendall(request.raw())
                response = read_message(upstream_reader)
                if response is None or action == "lost_response":
                    return
                client.sendall(response.raw())
        except OSError:
            return
        finally:
            for conn in (client, upstream):
                if conn is not None:
                    self._untrack(conn)
                    _close(conn)

    def _track(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.add(conn)

    def _untrack(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.discard(conn)


def error_response(rule: Rule) -> bytes:
    """A DynamoDB-shaped JSON error answer."""
    body = json.dumps(
        {"__type": f"com.amazonaws.dynamodb.v20120810#{rule.error_type}", "message": rule.message}
    ).encode()
    head = (
        f"HTTP/1.1 {rule.status} Injected\r\n"
        "Content-Type: application/x-amz-json-1.0\r\n"
        f"x-amzn-RequestId: faultproxy-{time.monotonic_ns()}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    return head + body


class _Reader:
    """Buffered reads from a socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def fill(self) -> bool:
        chunk = self.sock.recv(RECV_SIZE)
        self.buffer += chunk
        return bool(chunk)

    def until(self, marker: bytes) -> bytes | None:
        while marker not in self.buffer:
            if not self.fill():
                return None
        index = self.buffer.index(marker) + len(marker)
        data, self.buffer = self.buffer[:index], self.buffer[index:]
        return data

    def exactly(self, size: int) -> bytes | None:
        while len(self.buffer) < size:
            if not self.fill():
                return None
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data


def read_message(reader: _Reader) -> HttpMessage | None:
    """Read one HTTP/1.1 request or response (Content-Length or chunked body); None at EOF."""
    head = reader.until(b"\r\n\r\n")
    if head is None:
        return None
    headers = {}
    for line in head.decode("latin-1").split("\r\n")[1:]:
        if ":" in line:
            key, value = line.split(":", 1)
            headers[key.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = _read_chunked(reader)
    else:
        body = reader.exactly(int(headers.get("content-length", "0")))
    if body is None:
        return None
    return HttpMessage(head=head, body=body, headers=headers)


def _read_chunked(reader: _Reader) -> bytes | None:
    parts = []
    while True:
        size_line = reader.until(b"\r\n")
        if size_line is None:
            return None
        parts.append(size_line)
        size = int(size_line.split(b";")[0].strip(), 16)
        chunk = reader.exactly(size + 2)
        if chunk is None:
            return None
        parts.append(chunk)
        if size == 0:
            return b"".join(parts)


def _close(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        conn.close()
