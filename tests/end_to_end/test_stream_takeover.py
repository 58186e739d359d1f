"""The worker reading the stream is SIGKILLed while another service writes: the lease moves, the page
keeps up, and no total is shown twice or goes back."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
import requests
from playwright.sync_api import sync_playwright

from counters.streams.lease import lease_status
from tests.support.browser import launch
from tests.support.outside_writers import outside_client
from tests.support.site import redis_site_env, two_workers

LEASE_SECONDS = 3
WRITE_SECONDS = 8
RECORD = """(name) => {
  window.applied = [];
  LiveCounters.subscribe(message => message.counters.forEach(c => {
    if (c.name === name) window.applied.push(c.value);
  }));
}"""


def outside_writer(dynamodb_local, table: str, stop: threading.Event, written: list[int]) -> None:
    """Another service: one `ADD value :1` on the welcome page's total every 25 ms until stopped."""
    client = outside_client(dynamodb_local)
    while not stop.is_set():
        answer = client.update_item(
            TableName=table,
            Key={"PK": {"S": "C#welcome"}, "SK": {"S": "TOTAL"}},
            UpdateExpression="ADD #v :one",
            ExpressionAttributeNames={"#v": "value"},
            ExpressionAttributeValues={":one": {"N": "1"}},
            ReturnValues="UPDATED_NEW",
        )
        written.append(int(answer["Attributes"]["value"]["N"]))
        time.sleep(0.025)


def holder_pid(store) -> int:
    """The process holding the stream's lease (its owner name is host:pid:random)."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        status = lease_status(store.retrying, store.table)
        if status and status["live"]:
            return int(status["owner"].split(":")[1])
        time.sleep(0.2)
    raise AssertionError("nobody took the stream's lease")


@pytest.mark.browser
@pytest.mark.processes
def test_the_lease_moves_when_the_reader_is_killed(demo_store, dynamodb_local, tmp_path, redis_prefix):
    env = redis_site_env(demo_store, dynamodb_local, tmp_path, redis_prefix)
    env |= {"COUNTERS_STREAM_READER": "worker", "COUNTERS_STREAM_LEASE_SECONDS": str(LEASE_SECONDS)}
    with two_workers(env, tmp_path) as workers, sync_playwright() as playwright:
        for worker in workers:
            requests.get(f"{worker.url}/api/counters", timeout=10).raise_for_status()  # starts its reader
        killed = next(worker for worker in workers if holder_pid(demo_store) in worker.pids())
        survivor = next(worker for worker in workers if worker is not killed)
        browser = launch(playwright)
        try:
            page = browser.new_page()
            page.goto(f"{survivor.url}/")
            page.wait_for_selector('#connection[data-state="live"]', timeout=15_000)
            page.evaluate(RECORD, "welcome")
            stop, written = threading.Event(), []
            writer = threading.Thread(
                target=outside_writer, args=(dynamodb_local, demo_store.table, stop, written)
            )
            writer.start()
            try:
                time.sleep(2)
                os.kill(killed.process.pid, signal.SIGKILL)
                killed_at = time.monotonic()
                time.sleep(WRITE_SECONDS - 2)
            finally:
                stop.set()
                writer.join(10)
            final = demo_store.get("welcome").value
            assert final == written[-1] == len(written)
            page.wait_for_function(
                "(v) => document.querySelector('[data-counter=\"welcome\"]').dataset.value === String(v)",
                arg=final,
                timeout=20_000,
            )
            shown_after = time.monotonic() - killed_at
            print(f"{len(written)} outside writes; the last shown {shown_after:.1f}s after the kill")
            assert holder_pid(demo_store) in survivor.pids(), "the lease moved to the surviving worker"
            time.sleep(1)
            applied = page.evaluate("window.applied")
            assert applied == sorted(set(applied)), "no total shown twice, none going back"
            assert applied[-1] == final
        finally:
            browser.close()
