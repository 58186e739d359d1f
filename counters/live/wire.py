"""Websocket text frames encoded once per message and written straight to daphne's sockets.

Through channels, a frame handed to N sockets is encoded N times: each consumer's `send` goes to
daphne, which hands it to autobahn, which UTF-8 encodes and frames the same text again for every
socket. The frame's bytes are the same for every socket of an uncompressed server connection, so they
are built once here and written to each socket's Twisted transport (where autobahn's own writes end),
straight to the kernel when nothing is buffered before them. Anything else (another ASGI server, a
compressed or fragmenting connection, a socket not open) takes channels' ordinary `send`.
"""

from __future__ import annotations

import struct
import sys
from functools import cached_property, partial
from typing import Any

# First byte of every frame sent here: FIN (one-frame message) + opcode 1 (text); RFC 6455 5.2.
FIN_TEXT = 0x81
# Payload lengths from 126 take a 16-bit extended length, from 65536 a 64-bit one.
SHORT_LIMIT = 126
MEDIUM_LIMIT = 1 << 16
# The autobahn state daphne's protocol is in once the handshake completed (autobahn's STATE_OPEN).
AUTOBAHN_OPEN = 3


def text_frame(payload: bytes) -> bytes:
    """The RFC 6455 server frame (unmasked, final, text) carrying UTF-8 `payload`."""
    size = len(payload)
    if size < SHORT_LIMIT:
        header = struct.pack("!BB", FIN_TEXT, size)
    elif size < MEDIUM_LIMIT:
        header = struct.pack("!BBH", FIN_TEXT, 126, size)
    else:
        header = struct.pack("!BBQ", FIN_TEXT, 127, size)
    return header + payload


class OutgoingText(str):
    """A message's text that also carries its websocket frame, encoded on first use for every socket."""

    @cached_property
    def frame(self) -> bytes:
        """The whole text frame, as every uncompressed socket sends it."""
        return text_frame(self.encode())


class DirectWriter:
    """Write pre-encoded frames to one daphne websocket's transport, past autobahn's per-socket framing."""

    __slots__ = ("at_once", "protocol", "transport")

    def __init__(self, protocol: Any) -> None:
        self.protocol = protocol
        self.transport = protocol.transport
        # A plain TCP connection (never TLS, whose bytes must go through its own transport): a frame
        # goes straight to the kernel when nothing waits before it, not a buffer and a writer to wake.
        tcp = sys.modules.get("twisted.internet.tcp")
        self.at_once = tcp is not None and type(self.transport) is tcp.Server

    def write(self, frame: bytes) -> bool:
        """Write `frame`; False (nothing written) once the socket is no longer open or the frame too big."""
        protocol = self.protocol
        # Closing or closed: channels' send reports it as it always did. Over daphne's message size
        # limit: autobahn refuses it there too.
        if protocol.state != AUTOBAHN_OPEN or 0 < protocol.maxMessagePayloadSize < len(frame):
            return False
        transport = self.transport
        if (
            self.at_once
            and transport.connected
            and not transport.dataBuffer
            and not transport._tempDataBuffer
        ):
            # Twisted's own non-blocking send: the bytes sent (0 when the kernel's buffer is full) or
            # the connection's loss, which Twisted then reports when it writes the rest.
            sent = transport.writeSomeData(frame)
            sent = sent if isinstance(sent, int) else 0
            if sent == len(frame):
                return True
            frame = frame[sent:]
        transport.write(frame)
        return True


def direct_writer(send: Any) -> DirectWriter | None:
    """A direct writer for the socket behind an ASGI `send`, or None unless daphne serves it plainly."""
    # Only when daphne already runs this process: importing daphne.server installs a Twisted reactor.
    server_module = sys.modules.get("daphne.server")
    protocol_module = sys.modules.get("daphne.ws_protocol")
    if server_module is None or protocol_module is None:
        return None
    # daphne hands the application `partial(server.handle_reply, protocol)` (daphne 4.2's Server).
    if not isinstance(send, partial) or len(send.args) != 1:
        return None
    server, protocol = getattr(send.func, "__self__", None), send.args[0]
    if not isinstance(server, server_module.Server):
        return None
    if not isinstance(protocol, protocol_module.WebSocketProtocol) or not plain(protocol):
        return None
    return DirectWriter(protocol)


def plain(protocol: Any) -> bool:
    """Whether every text frame of this open socket is one unmasked, uncompressed frame as encoded here."""
    return (
        protocol.state == AUTOBAHN_OPEN
        and protocol.factory.isServer
        and getattr(protocol, "_perMessageCompress", None) is None
        and not protocol.autoFragmentSize
        and not protocol.maskServerFrames
        # autobahn's queue of chopped writes: a frame written past it would overtake them.
        and not protocol.send_queue
        and protocol.transport is not None
    )
