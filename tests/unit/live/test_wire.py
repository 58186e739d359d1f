"""Websocket frames encoded once: checked by a real websocket client's parser, and daphne detection."""

from __future__ import annotations

from functools import partial

import pytest
from websockets.client import ClientProtocol
from websockets.frames import Opcode
from websockets.protocol import OPEN
from websockets.uri import parse_uri

from counters.live.wire import AUTOBAHN_OPEN, DirectWriter, OutgoingText, direct_writer, text_frame

# Short (7-bit length), medium (16-bit extended length, 126 to 65535), long (64-bit, above 65535).
SIZES = [0, 1, 125, 126, 127, 65_535, 65_536, 200_000]


def parsed(wire: bytes) -> list:
    """The frames a websocket client (the `websockets` library's own parser) reads from `wire`."""
    client = ClientProtocol(parse_uri("ws://127.0.0.1/ws/counters/"), state=OPEN, max_size=None)
    client.receive_data(wire)
    return client.events_received()


@pytest.mark.parametrize("size", SIZES)
def test_a_text_frame_of_any_length_is_read_back_whole(size):
    text = ("é" + "x" * size)[:size] if size else ""
    [frame] = parsed(text_frame(text.encode()))
    assert frame.opcode is Opcode.TEXT and frame.fin
    assert frame.data.decode() == text and len(frame.data) == len(text.encode())


def test_frames_sent_back_to_back_are_read_as_separate_messages():
    texts = ['{"type":"update"}', "y" * 300, "z" * 70_000]
    frames = parsed(b"".join(OutgoingText(text).frame for text in texts))
    assert [frame.data.decode() for frame in frames] == texts


def test_outgoing_text_is_the_text_and_encodes_its_frame_once():
    text = OutgoingText('{"type":"update","counters":[]}')
    assert text == '{"type":"update","counters":[]}' and isinstance(text, str)
    assert text.frame is text.frame
    assert text.frame == b"\x81\x1f" + text.encode()


class FakeTransport:
    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)


class FakeProtocol:
    """The attributes of an autobahn server protocol that the direct writer reads."""

    state = AUTOBAHN_OPEN
    maxMessagePayloadSize = 1000

    def __init__(self) -> None:
        self.transport = FakeTransport()


def test_the_direct_writer_writes_to_an_open_socket_only_and_within_the_size_limit():
    protocol = FakeProtocol()
    writer = DirectWriter(protocol)
    assert writer.write(b"\x81\x01x") is True
    assert writer.write(b"x" * 1001) is False
    protocol.state = AUTOBAHN_OPEN + 1  # closing
    assert writer.write(b"\x81\x01y") is False
    assert protocol.transport.written == [b"\x81\x01x"]


async def test_no_direct_writer_for_a_send_that_is_not_daphnes():
    async def send(message: dict) -> None: ...

    assert direct_writer(send) is None
    assert direct_writer(partial(send)) is None
    assert direct_writer(partial(print, object())) is None
