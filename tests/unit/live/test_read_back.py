"""The read-back: votes' polls read once per interval after they were acknowledged, then published."""

from __future__ import annotations

import threading
import time

import pytest

from counters.domain.values import CounterState
from counters.live.loop import LiveLoop, live_loop
from counters.live.read_back import ReadBack
from tests.support.server_loop import server_loop
from tests.support.timing import wait_until


class Store:
    """A poll total that grows with every vote; reads counted, the first `failing` of them refused."""

    def __init__(self, failing: int = 0) -> None:
        self.value = 0
        self.reads: list[list[str]] = []
        self.failing = failing
        self.lock = threading.Lock()

    def vote(self) -> None:
        with self.lock:
            self.value += 1

    def read(self, keys: list[str]) -> list[CounterState]:
        with self.lock:
            self.reads.append(keys)
            if len(self.reads) <= self.failing:
                raise ConnectionError("the store is away")
            return [
                CounterState(name=f"{key}.a", kind="votes", value=self.value, version=self.value)
                for key in keys
            ]


@pytest.fixture
def published(settings) -> list[tuple[str, int]]:
    settings.COUNTERS_BROADCAST_INTERVAL = 0.05
    return []


def read_back_of(store: Store, published: list[tuple[str, int]], live: LiveLoop | None = None) -> ReadBack:
    """A read-back on the process's live loop (or `live`) sending (name, value) pairs."""

    async def send(states: list[CounterState]) -> None:
        published.extend((s.name, s.value) for s in states)

    return ReadBack(live or live_loop(), read=store.read, send=send)


def test_without_a_server_loop_the_caller_reads_itself(published):
    assert read_back_of(Store(), published, LiveLoop()).request(["poll"]) is False
    assert published == []


def test_many_votes_share_few_reads_and_the_last_read_holds_every_vote(published):
    store = Store()
    read_back = read_back_of(store, published)
    with server_loop():
        for _ in range(200):
            store.vote()  # acknowledged, then handed on
            assert read_back.request(["poll"]) is True
            time.sleep(0.001)  # votes spread over time, as people cast them: the load under test
        wait_until(lambda: published and published[-1] == ("poll.a", 200), "every vote pushed", timeout=10)
    assert published[-1] == ("poll.a", 200)
    assert 1 <= len(store.reads) < 50, len(store.reads)  # about one per interval, not one per vote


def test_a_failed_read_is_retried_until_the_votes_are_pushed(published, caplog):
    store = Store(failing=2)
    read_back = read_back_of(store, published)
    with server_loop():
        store.vote()
        read_back.request(["poll"])
        wait_until(lambda: published == [("poll.a", 1)], "the vote pushed", timeout=10)
    assert published == [("poll.a", 1)]
    assert len(store.reads) == 3
    assert "Read-back failed; retrying" in caplog.text


def test_a_failed_send_reads_again_and_sends_until_the_votes_are_pushed(published, caplog):
    store, refusals = Store(), [ConnectionError("the layer is away")]

    async def send(states: list[CounterState]) -> None:
        if refusals:
            raise refusals.pop()
        published.extend((s.name, s.value) for s in states)

    read_back = ReadBack(live_loop(), read=store.read, send=send)
    with server_loop():
        store.vote()
        read_back.request(["poll"])
        wait_until(lambda: published == [("poll.a", 1)], "the vote pushed after the failed send", timeout=10)
    assert published == [("poll.a", 1)] and len(store.reads) == 2
    assert "Read-back failed; retrying" in caplog.text
