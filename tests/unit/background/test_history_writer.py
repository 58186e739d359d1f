"""History buckets against DynamoDB Local: batched writes, sums, TTLs, windows and the JSON API."""

from __future__ import annotations

import calendar
import threading
import time
from zoneinfo import ZoneInfo

import pytest
from botocore.exceptions import ClientError, ConnectTimeoutError
from django.conf import settings

from counters import services
from counters.background import history_writer as history
from counters.background.history_writer import HistoryRecorder
from counters.domain.buckets import HOUR, MINUTE
from counters.domain.clock import day_of
from counters.domain.names import SITE_VISITORS
from counters.domain.values import CounterDefinition
from counters.exceptions import StoreUnavailable
from counters.store.dynamodb import schema
from counters.store.dynamodb.outage import unavailable_on_outage


def bucket_items(store, name: str) -> list[dict]:
    """Every history item of a counter, read directly."""
    return store.retrying.query(
        TableName=store.table,
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": schema.history_pk(name)}},
        ConsistentRead=True,
    )["Items"]


def bucket_start(sk: str) -> int:
    """Epoch start of a bucket from its sort key."""
    kind, stamp = sk.split("#", 1)
    fmt = MINUTE.key_format if kind == "M" else HOUR.key_format
    return calendar.timegm(time.strptime(stamp, fmt))


def quiet_recorder(store) -> HistoryRecorder:
    """A recorder whose background flush never runs within a test, so only the test's flushes write."""
    return HistoryRecorder(store, interval=3600)


@pytest.fixture
def page(store, process_runtime):
    store.define_counter(CounterDefinition(name="welcome", kind="views", title="Welcome"))
    # The runtime's recorder flushes every second; on a busy machine that lands mid-test.
    process_runtime.give("history", quiet_recorder(store))
    return store


def test_views_land_in_minute_and_hour_buckets_that_add_up(page):
    writes = []
    original = page.add_to_bucket
    page.add_to_bucket = lambda *args, **kwargs: (writes.append(args), original(*args, **kwargs))
    for _ in range(25):
        services.view_record(slug="welcome")
    # Each view is in the page's history and the whole site's (SITE_VISITORS).
    assert history.pending() == 50
    assert history.flush() == len(writes)
    # One ADD per bucket, not per view: a minute, an hour and a day bucket of each (two of any across a
    # boundary), for the page and for the site.
    assert 6 <= len(writes) <= 12
    assert {args[0] for args in writes} == {"welcome", SITE_VISITORS}
    items = bucket_items(page, "welcome")
    minutes, hours, days = (
        {i["SK"]["S"]: int(i["count"]["N"]) for i in items if i["SK"]["S"].startswith(p)}
        for p in ("M#", "H#", "V#")
    )
    assert (
        sum(minutes.values()) == sum(hours.values()) == sum(days.values()) == page.get("welcome").value == 25
    )
    assert history.pending() == 0 and history.flush() == 0


def test_buckets_carry_their_ttl(page):
    services.view_record(slug="welcome")
    history.flush()
    items = bucket_items(page, "welcome")
    assert {item["SK"]["S"][:2] for item in items} == {"M#", "H#", "V#"}
    for item in items:
        expires = int(item[schema.EXPIRES_AT]["N"])
        if item["SK"]["S"].startswith("V#"):
            day = day_of(time.time(), ZoneInfo(settings.TIME_ZONE))
            assert item["SK"]["S"] == f"V#{day.date.isoformat()}" and expires == day.end + 90 * 86400
            continue
        start = bucket_start(item["SK"]["S"])
        if item["SK"]["S"].startswith("M#"):
            assert expires == start + 60 + 48 * 3600
        else:
            assert expires == start + 3600 + 90 * 86400
        assert expires > time.time()
    ttl = page.retrying.describe_time_to_live(TableName=page.table)["TimeToLiveDescription"]
    assert ttl["AttributeName"] == schema.EXPIRES_AT


def test_windows_zero_fill_and_place_views_in_time(client, page):
    now = time.time()
    recorder = quiet_recorder(page)
    recorder.record(name="welcome", count=3, at=now)
    recorder.record(name="welcome", count=4, at=now - 30 * 60)  # in the last hour
    recorder.record(name="welcome", count=5, at=now - 3 * 3600)  # in 48 h, not in the last hour
    recorder.record(name="welcome", count=6, at=now - 60 * 3600)  # only in 90 days
    recorder.flush()

    hour = client.get("/api/counters/welcome/history?window=1h").json()
    assert (hour["resolution"], hour["bucket_seconds"], len(hour["points"])) == ("minute", 60, 60)
    assert [p["count"] for p in hour["points"]][-1] == 3
    assert [p["count"] for p in hour["points"]][-31] == 4
    assert hour["total"] == 7
    assert hour["points"][-1]["start"] == time.strftime("%Y-%m-%dT%H:%M:00Z", time.gmtime(now))

    two_days = client.get("/api/counters/welcome/history?window=48h").json()
    assert (len(two_days["points"]), two_days["total"]) == (2880, 12)

    quarter = client.get("/api/counters/welcome/history?window=90d").json()
    assert (quarter["resolution"], len(quarter["points"]), quarter["total"]) == ("hour", 2160, 18)
    assert quarter["points"][-1]["start"].endswith(":00:00Z")
    assert client.get("/api/counters/welcome/history").json()["window"] == "1h"
    by_quarter = client.get("/api/counters/welcome/history?window=48h&step=15m").json()
    assert (by_quarter["bucket_seconds"], len(by_quarter["points"]), by_quarter["total"]) == (900, 192, 12)


def test_history_api_refuses_bad_input(client, page):
    for url, status, code in [
        ("/api/counters/welcome/history?window=7d", 400, "invalid"),
        ("/api/counters/welcome/history?window=90d&step=1m", 400, "invalid"),
        ("/api/counters/ghost/history?window=1h", 404, "not_found"),
        ("/api/counters/BAD!/history?window=1h", 400, "invalid"),
    ]:
        response = client.get(url)
        assert response.status_code == status, url
        assert response.json()["error"] == code
        assert set(response.json()) == {"error", "detail"}
    assert client.post("/api/counters/welcome/history").status_code == 405
    assert bucket_items(page, "ghost") == []


class FailingStore:
    """Stands in for the store: every bucket write fails with the given error."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.calls = 0

    def add_to_bucket(self, *args, **kwargs) -> None:
        self.calls += 1
        raise self.error


def as_the_store_raises(cause: Exception) -> StoreUnavailable:
    """The StoreUnavailable the DynamoDB backend makes of a botocore failure during a write."""
    try:
        with unavailable_on_outage(write=True):
            raise cause
    except StoreUnavailable as exc:
        return exc
    raise AssertionError(f"{cause!r} was not mapped to StoreUnavailable")


def throttled() -> StoreUnavailable:
    return as_the_store_raises(ClientError({"Error": {"Code": "ThrottlingException"}}, "UpdateItem"))


def timed_out() -> StoreUnavailable:
    return as_the_store_raises(ConnectTimeoutError(endpoint_url="http://127.0.0.1:1"))


def test_throttled_buckets_are_kept_and_unknown_outcomes_dropped():
    refused = FailingStore(throttled())
    recorder = quiet_recorder(refused)
    recorder.record(name="welcome", count=2)
    assert recorder.flush() == 0 and refused.calls == 3, "its minute, hour and day bucket"
    assert recorder.pending() == 2, "a throttled write wrote nothing: it is sent again next time"

    unknown = FailingStore(timed_out())
    recorder = quiet_recorder(unknown)
    recorder.record(name="welcome", count=2)
    recorder.flush()
    assert recorder.pending() == 0, "a write that may have landed is not sent twice"


def test_no_flush_writes_while_a_reader_holds_it_steady(memory_store):
    recorder = HistoryRecorder(memory_store)
    recorder.record(name="docs", count=2)
    flushed = threading.Event()
    with recorder.steady():
        flusher = threading.Thread(target=lambda: (recorder.flush(), flushed.set()))
        flusher.start()
        # The tally and the buckets read now agree: the views are still tallied, not written.
        assert not flushed.wait(0.3) and recorder.pending() == 2
    flusher.join(timeout=10)
    assert flushed.is_set() and recorder.pending() == 0
