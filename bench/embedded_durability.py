"""What DynamoDB Local keeps of acknowledged writes when it is stopped or killed under load.

Run: .venv/bin/python bench/embedded_durability.py [--rounds 3] [--stop kill|term|stop] [--at-ack]
     [--barrier] [--flag -optimizeDbBeforeStartup] [--java-opt -Dx=y] [--wal]
Each round starts DynamoDB Local on a fresh data dir with the project's launcher, runs writer threads
(ADDs, and transactions shaped like a vote: two conditional Puts and one ADD), stops it mid-load
(`kill` SIGKILL, `term` SIGTERM, `stop` the launcher's stop as `manage.py counters_local stop`),
starts it again on the same dir and counts, by kind, the writes that were acknowledged but are gone.
`--at-ack` stops it right after a vote is acknowledged (the worst moment) rather than at a random one.
`--barrier` counts a transaction as acknowledged only after a GetItem that followed it has answered.
Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

from counters.embedded import dynamodb_local  # noqa: E402

TABLE = "durability"
POLL_TOTAL = {"PK": {"S": "C#poll:yes"}, "SK": {"S": "TOTAL"}}
# One attempt each: a resent ADD could count twice and hide a loss.
CLIENT_CONFIG = Config(connect_timeout=1, read_timeout=5, retries={"total_max_attempts": 1})
FAILURES = (BotoCoreError, ClientError)


@dataclass
class Tally:
    """One writer's acknowledged writes, and whether its last one went unanswered."""

    acknowledged: list[str] = field(default_factory=list)
    unknown: int = 0


@dataclass
class Round:
    """Acknowledged-but-missing writes of one round, by kind."""

    adds_acknowledged: int = 0
    adds_lost: int = 0
    adds_extra: int = 0
    votes_acknowledged: int = 0
    votes_lost: int = 0
    votes_partial: int = 0


def client_for(local: dynamodb_local.LocalDynamo):
    """A DynamoDB client of its own (boto3 sessions are not shared between threads)."""
    session = boto3.session.Session(
        aws_access_key_id=local.access_key_id,
        aws_secret_access_key=local.secret_access_key,
        region_name=local.region,
    )
    return session.client("dynamodb", endpoint_url=local.endpoint_url, config=CLIENT_CONFIG)


def create_table(client) -> None:
    """The project's key shape: PK and SK strings, on demand."""
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )


def add(client, name: str) -> None:
    """One counter increment, as the site counts a view."""
    client.update_item(
        TableName=TABLE,
        Key={"PK": {"S": name}, "SK": {"S": "TOTAL"}},
        UpdateExpression="ADD #v :one",
        ExpressionAttributeNames={"#v": "value"},
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )


def vote(client, voter: str, barrier: bool) -> None:
    """One vote-shaped transaction: voter record and idempotency record, both conditional, and +1."""
    new = "attribute_not_exists(PK)"
    client.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": TABLE, "Item": voter_key(voter), "ConditionExpression": new}},
            {"Put": {"TableName": TABLE, "Item": idem_key(voter), "ConditionExpression": new}},
            {
                "Update": {
                    "TableName": TABLE,
                    "Key": POLL_TOTAL,
                    "UpdateExpression": "ADD #v :one",
                    "ExpressionAttributeNames": {"#v": "value"},
                    "ExpressionAttributeValues": {":one": {"N": "1"}},
                }
            },
        ],
        ClientRequestToken=voter,
    )
    if barrier:
        # DynamoDB Local answers a transaction before its COMMIT has run on its one SQLite thread;
        # a read queues behind that COMMIT, so once it answers the transaction is on disk.
        client.get_item(TableName=TABLE, Key=voter_key(voter), ConsistentRead=True)


def voter_key(voter: str) -> dict:
    """The voter record's key."""
    return {"PK": {"S": "P#poll"}, "SK": {"S": f"VOTER#{voter}"}}


def idem_key(voter: str) -> dict:
    """The idempotency record's key."""
    return {"PK": {"S": "P#poll"}, "SK": {"S": f"IDEM#{voter}"}}


def writer(client, tally: Tally, write, stopping: threading.Event, on_ack=None) -> None:
    """Write until told to stop or until a write goes unanswered (the store is gone)."""
    while not stopping.is_set():
        key = uuid.uuid4().hex
        try:
            write(client, key)
        except FAILURES:
            tally.unknown += 1
            return
        tally.acknowledged.append(key)
        if on_ack is not None:
            on_ack()


class StopOnAck:
    """Once armed, stop the store right after the next acknowledged vote: the worst moment for it."""

    def __init__(self, stop_store) -> None:
        self.stop_store = stop_store
        self.armed = threading.Event()
        self.done = threading.Event()
        self.lock = threading.Lock()

    def __call__(self) -> None:
        if not self.armed.is_set():
            return
        with self.lock:
            if not self.done.is_set():
                self.stop_store()
                self.done.set()


def run_load(local, args, stop_store) -> tuple[list[Tally], list[Tally]]:
    """Run the writers for `args.seconds`, stop the store under them, and return their tallies."""
    adders, voters = [Tally() for _ in range(args.adders)], [Tally() for _ in range(args.voters)]
    stopping, on_ack = threading.Event(), StopOnAck(stop_store)
    writes = [(t, lambda c, _key, i=i: add(c, f"C#add{i}"), None) for i, t in enumerate(adders)]
    writes += [(t, lambda c, key: vote(c, key, args.barrier), on_ack) for t in voters]
    threads = [
        threading.Thread(target=writer, args=(client_for(local), tally, write, stopping, hook))
        for tally, write, hook in writes
    ]
    for thread in threads:
        thread.start()
    time.sleep(args.seconds)
    if args.at_ack:
        on_ack.armed.set()
        on_ack.done.wait(timeout=30)
    else:
        stop_store()
    stopping.set()
    for thread in threads:
        thread.join(timeout=30)
    return adders, voters


def stopper(data_dir: Path, local, how: str):
    """A callable that stops the instance the chosen way and waits until it has exited."""

    def stop() -> None:
        if how == "stop":
            dynamodb_local.stop(data_dir)
            return
        os.kill(local.pid, signal.SIGKILL if how == "kill" else signal.SIGTERM)
        deadline = time.monotonic() + 20
        while not dynamodb_local._gone(local.pid) and time.monotonic() < deadline:
            time.sleep(0.02)

    return stop


def check(client, adders: list[Tally], voters: list[Tally]) -> Round:
    """Compare what is stored now with what was acknowledged."""
    items = scan(client)
    result = Round()
    for index, tally in enumerate(adders):
        stored = int(items.get((f"C#add{index}", "TOTAL"), {}).get("value", {"N": "0"})["N"])
        result.adds_acknowledged += len(tally.acknowledged)
        result.adds_lost += max(0, len(tally.acknowledged) - stored)
        result.adds_extra += max(0, stored - len(tally.acknowledged) - tally.unknown)
    voter_records = {sk[6:] for pk, sk in items if pk == "P#poll" and sk.startswith("VOTER#")}
    idem_records = {sk[5:] for pk, sk in items if pk == "P#poll" and sk.startswith("IDEM#")}
    for tally in voters:
        result.votes_acknowledged += len(tally.acknowledged)
        result.votes_lost += sum(1 for key in tally.acknowledged if key not in voter_records)
    total = int(items.get(("C#poll:yes", "TOTAL"), {}).get("value", {"N": "0"})["N"])
    # A transaction is all or nothing: a voter without its idempotency record or its +1 is partial.
    result.votes_partial = len(voter_records ^ idem_records) + abs(total - len(voter_records))
    return result


def scan(client) -> dict[tuple[str, str], dict]:
    """Every item of the table by key, read consistently."""
    items = {}
    for page in client.get_paginator("scan").paginate(TableName=TABLE, ConsistentRead=True):
        for item in page["Items"]:
            items[(item["PK"]["S"], item["SK"]["S"])] = item
    return items


def use_wal(data_dir: Path) -> None:
    """Switch the stopped instance's SQLite files to WAL (the one journal setting a file keeps)."""
    for db in (data_dir / "dynamodb").glob("*.db"):
        with sqlite3.connect(db) as connection:
            connection.execute("PRAGMA journal_mode=WAL")


def one_round(args, number: int) -> Round:
    """Start, load, stop, start again, check; always leave no instance behind."""
    with tempfile.TemporaryDirectory(prefix="durability-") as tmp:
        data_dir = Path(tmp)
        try:
            local = dynamodb_local.ensure_running(data_dir, base_dir=BASE_DIR)
            create_table(client_for(local))
            if args.wal:
                dynamodb_local.stop(data_dir)
                use_wal(data_dir)
                local = dynamodb_local.ensure_running(data_dir, base_dir=BASE_DIR)
            adders, voters = run_load(local, args, stopper(data_dir, local, args.stop))
            back = dynamodb_local.ensure_running(data_dir, base_dir=BASE_DIR)
            result = check(client_for(back), adders, voters)
        finally:
            dynamodb_local.stop(data_dir)
    print(f"round {number}: {result}", flush=True)
    return result


def with_options(java_opts: list[str], flags: list[str]) -> None:
    """Make the launcher pass extra Java options and DynamoDB Local flags (to try them, not to keep them)."""
    command = dynamodb_local._command

    def extended(jar_dir: Path, port: int, storage: list[str]) -> list[str]:
        java, *rest = command(jar_dir, port, storage)
        return [java, *java_opts, *rest, *flags]

    dynamodb_local._command = extended


def parse() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0, help="load before the stop")
    parser.add_argument("--adders", type=int, default=3)
    parser.add_argument("--voters", type=int, default=3)
    parser.add_argument("--stop", choices=["kill", "term", "stop"], default="kill")
    parser.add_argument("--barrier", action="store_true")
    parser.add_argument("--at-ack", action="store_true", help="stop right after a vote is acknowledged")
    parser.add_argument("--wal", action="store_true")
    parser.add_argument("--flag", action="append", default=[], help="a DynamoDB Local flag")
    parser.add_argument("--java-opt", action="append", default=[], help="a JVM option")
    return parser.parse_args()


def main() -> None:
    args = parse()
    with_options(args.java_opt, args.flag)
    print(f"load average {os.getloadavg()[0]:.1f}; {vars(args)}", flush=True)
    results = [one_round(args, number) for number in range(1, args.rounds + 1)]
    lossy = sum(1 for r in results if r.votes_lost)
    print(
        f"adds: {sum(r.adds_acknowledged for r in results)} acknowledged, "
        f"{sum(r.adds_lost for r in results)} lost, {sum(r.adds_extra for r in results)} extra; "
        f"votes: {sum(r.votes_acknowledged for r in results)} acknowledged, "
        f"{sum(r.votes_lost for r in results)} lost (in {lossy} of {len(results)} rounds), "
        f"{sum(r.votes_partial for r in results)} partial; load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
