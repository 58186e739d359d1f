"""Each role's code paths, driven once: the operator's commands, the web workers' pages, API and admin,
and the stream reader's rounds."""

from __future__ import annotations

import io
import json
import time
import uuid

from django.core.management import call_command
from django.test import Client

from counters.background import history_writer
from counters.background.tally_writer import tally_writer
from counters.domain.visitors import new_salt, visit_day
from counters.services import polls
from counters.store import get_store
from counters.store.dynamodb.streams.every_stream import own_changes
from counters.store.dynamodb.streams.lease import Lease
from counters.store.dynamodb.streams.reader import StreamReader
from counters.streams.changes import OutsideChanges

PAGE = "docs"
POLL = "language"


def run_commands() -> None:
    """What an operator runs: create and seed the table, register, reset, polls, badges, shards."""
    quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    call_command("counters_init", **quiet)
    call_command("counters_init", **quiet)  # again: the table is there, its stream is on
    call_command("counters_register", "launch", "--start", "5", **quiet)
    call_command("counters_init", "--no-demo", **quiet)  # moves the start into the total
    version = get_store().get("launch").version
    call_command("counters_reset", "launch", "--expect-version", str(version), "--reason", "test", **quiet)
    call_command(
        "counters_poll",
        "create",
        "lunch",
        "--question",
        "Lunch?",
        "--option",
        "a=A",
        "--option",
        "b=B",
        **quiet,
    )
    call_command("counters_poll", "add-option", "lunch", "c=C", **quiet)
    call_command("counters_poll", "close", "lunch", **quiet)
    call_command("counters_poll", "reopen", "lunch", **quiet)
    call_command("counters_poll", "list", **quiet)
    call_command("counters_badge", PAGE, "--count", **quiet)
    call_command("counters_hot", PAGE, "--shards", "2", **quiet)
    call_command("counters_watch", "list", **quiet)


def turn_the_stream_on() -> None:
    """What `counters_init` does to a table made without a stream (the operator's other path)."""
    call_command("counters_init", "--no-demo", stdout=io.StringIO())


def browse_and_vote() -> None:
    """What web workers serve: pages, the beacon, reads of the API, votes, and the admin's changes."""
    visitor = Client()
    for path in (
        "/",
        f"/pages/{PAGE}/",
        "/api/counters",
        f"/api/counters/{PAGE}",
        f"/api/counters/{PAGE}/history",
        "/api/overview",
        "/api/sparklines",
        "/api/polls",
        f"/api/polls/{POLL}",
        "/api/pages.csv",
        f"/badge/{PAGE}.svg",
        "/api/site",
        "/readyz",
    ):
        assert visitor.get(path).status_code < 500, path
    assert visitor.post(f"/api/views/{PAGE}").status_code < 300
    vote = f"/api/polls/{POLL}/vote"
    body = json.dumps({"option": "python"})
    key = {"HTTP_IDEMPOTENCY_KEY": uuid.uuid4().hex}
    assert visitor.post(vote, body, content_type="application/json", **key).status_code == 200
    assert (
        visitor.post(vote, json.dumps({"option": "go"}), content_type="application/json").status_code == 200
    )
    assert visitor.delete(vote).status_code == 200
    # What a worker's tickers write for these requests (views per minute and hour, the site's day
    # tallies), written now and the tickers stopped, so none of it lands while another role plays.
    history_writer.recorder().close()
    tally_writer().close()
    # The admin (served by the web workers) removes a poll; a worker's first view of a day drops old salts.
    store = get_store()
    version = store.get_poll("deploy").version
    polls.poll_delete(poll_id="deploy", expected_version=version, actor="staff", reason="test")
    store.daily_salt(visit_day(time.time() - 3 * 86400), candidate=new_salt())
    assert store.drop_salts(before=visit_day(time.time())) == 1


def read_stream() -> None:
    """What the stream reader does: take the lease, find the stream and its shards, read and checkpoint."""
    store = get_store()
    reader = StreamReader(
        table=store.gateway,
        streams=store.streams,
        lease=Lease(store.gateway, owner="reader", seconds=10),
        handle=own_changes(OutsideChanges(publish=lambda updates: None, read=store.get)),
    )
    for _ in range(3):
        reader.round()
    reader.close()
