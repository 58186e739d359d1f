"""CSV exports: they parse with Python's csv, match the JSON answers, and carry no spreadsheet formula."""

from __future__ import annotations

import csv
import io
import time
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.test import Client as DjangoClient

from counters import selectors, services
from counters.background.history_writer import HistoryRecorder
from counters.domain.clock import Clock
from counters.domain.names import DASHBOARD_COUNTER
from counters.domain.visitors import Client

NOW = time.time()
# Every window with every step that fits it (and its default), per series.
COMBINATIONS = [
    *[("views", "1h", step) for step in (None, "1m", "15m", "1h")],
    *[("views", window, step) for window in ("24h", "48h") for step in (None, "1m", "15m", "1h", "1d")],
    *[("views", "90d", step) for step in (None, "1h", "1d")],
    *[("visitors", "90d", step) for step in (None, "1d")],
]


def rows(response) -> list[list[str]]:
    """The CSV answer parsed by Python's csv module."""
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="')
    return list(csv.reader(io.StringIO(response.content.decode("utf-8"), newline="")))


class StillClock(Clock):
    """A clock in the site's zone that reads NOW, always."""

    def time(self) -> float:
        """NOW."""
        return NOW


@pytest.fixture(params=["UTC", "America/St_Johns", "Pacific/Auckland"])
def fixed_clock(request, process_runtime):
    """The JSON and the CSV read the same buckets, whatever minute the test runs across, in a zone."""
    return process_runtime.give("clock", StillClock(ZoneInfo(request.param)))


@pytest.fixture
def views(memory_demo_store, fixed_clock, process_runtime) -> None:
    """Views of `docs` now (4), 3 minutes, 5 hours and 3 days ago, and a visitor, as the site writes them."""
    # The site's own recorder, flushed by the test only: a flush in the background would land mid-test.
    recorder = process_runtime.give(
        "history", HistoryRecorder(memory_demo_store, interval=3600, zone=fixed_clock.zone)
    )
    for seconds_ago, count in ((0, 4), (180, 3), (5 * 3600, 5), (3 * 86400, 6)):
        recorder.record(name="docs", count=count, at=NOW - seconds_ago)
    recorder.flush()
    services.view_record(
        slug="docs", client=Client(address="198.51.100.1", user_agent="Firefox/133.0"), at=NOW
    )


@pytest.mark.parametrize(("series", "window", "step"), COMBINATIONS)
def test_history_csv_has_exactly_the_json_buckets(views, fixed_clock, series, window, step):
    browser = DjangoClient()
    query = {"series": series, "window": window, **({"step": step} if step else {})}
    history = browser.get("/api/counters/docs/history", query).json()
    table = rows(browser.get("/api/counters/docs/history.csv", query))

    assert table[0] == ["start", "local_start", "count"]
    assert [[point["start"], str(point["count"])] for point in history["points"]] == [
        [start, count] for start, _, count in table[1:]
    ]
    assert sum(int(count) for *_, count in table[1:]) == history["total"] > 0
    for start, local_start, _ in table[1:]:
        assert start.endswith("Z") and "T" in start, "ISO 8601 UTC times"
        assert datetime.fromisoformat(local_start) == datetime.fromisoformat(start)
        assert (
            datetime.fromisoformat(local_start).utcoffset()
            == datetime.fromisoformat(start).astimezone(fixed_clock.zone).utcoffset()
        ), "the same moment, in the site's zone"
    if history["step"] == "1d":
        assert {local[11:19] for _, local, _ in table[1:]} == {"00:00:00"}, "a day starts at local midnight"


def test_ninety_days_by_day_are_ninety_rows(views):
    table = rows(DjangoClient().get("/api/counters/docs/history.csv", {"window": "90d", "step": "1d"}))
    assert len(table) == 1 + 90
    assert sum(int(count) for *_, count in table[1:]) == 18


def test_the_pages_csv_is_the_dashboards_pages_table(views, fixed_clock, process_runtime):
    bot = Client(address="66.249.66.1", user_agent="Mozilla/5.0 (compatible; Googlebot/2.1)")
    services.view_record(slug="welcome", client=bot)
    # The table counts this process's views not yet in the history; the history JSON, read below to
    # compare, counts what is written: write them first so both see the same views.
    process_runtime.history.flush()
    browser = DjangoClient()
    response = browser.get("/api/pages.csv")
    table = rows(response)

    today = fixed_clock.today().date.isoformat()
    assert response["Content-Disposition"] == f'attachment; filename="pages-{today}.csv"'
    assert table[0] == [
        "page",
        "title",
        "views",
        "views_today",
        "views_last_hour",
        "visitors_today",
        "bot_views",
    ]
    shown = {row[0]: row for row in table[1:]}
    dashboard = selectors.overview(counters=selectors.counter_list(), polls=[])
    assert list(shown) == [page.state.name for page in dashboard.pages], "busiest first, as on the dashboard"
    for counter in browser.get("/api/counters").json()["counters"]:
        # The dashboard's own loads are not traffic: no row on the dashboard, none in its CSV.
        if counter["kind"] == "views" and counter["name"] != DASHBOARD_COUNTER:
            assert shown[counter["name"]][1:3] == [counter["title"], str(counter["value"])]
            assert shown[counter["name"]][5:] == [str(counter["visitors_today"]), str(counter["bot_views"])]
    by_day = browser.get("/api/counters/docs/history", {"window": "90d", "step": "1d"}).json()
    last_hour = browser.get("/api/counters/docs/history", {"window": "1h"}).json()
    assert shown["docs"][3:5] == [str(by_day["points"][-1]["count"]), str(last_hour["total"])]
    now_views = "the views of now (4, 3 and the visitor's) are today's"
    assert int(shown["docs"][3]) >= 5 and shown["docs"][4] == "8", now_views
    assert (shown["docs"][5], shown["welcome"][6]) == ("1", "1")


def test_history_csv_defaults_to_the_last_hour(views):
    table = rows(DjangoClient().get("/api/counters/docs/history.csv"))
    assert len(table) == 1 + 60


def test_poll_results_parse_and_add_up_to_the_polls_total(memory_demo_store):
    for voter, option in [("a", "python"), ("b", "python"), ("c", "python"), ("d", "go")]:
        services.vote_cast(poll_id="language", voter=voter, option=option)
    client = DjangoClient()
    poll = next(p for p in client.get("/api/polls").json()["polls"] if p["id"] == "language")
    table = rows(client.get("/api/polls/language/results.csv"))

    assert table[0] == ["option", "label", "votes", "share"]
    assert table[1:] == [
        ["python", "Python", "3", "0.75"],
        ["go", "Go", "1", "0.25"],
        ["rust", "Rust", "0", "0.0"],
        ["typescript", "TypeScript", "0", "0.0"],
    ]
    assert sum(int(votes) for _, _, votes, _ in table[1:]) == poll["total"] == 4


def test_a_poll_without_votes_has_no_share_yet(memory_demo_store):
    table = rows(DjangoClient().get("/api/polls/deploy/results.csv"))
    assert {share for *_, share in table[1:]} == {"0.0"}


def test_labels_that_a_spreadsheet_would_run_are_written_as_text(memory_demo_store):
    labels = ['=HYPERLINK("http://evil.example")', "+1+1", "-2+3", "@SUM(A1)", 'Plain, "quoted"']
    services.poll_create(
        poll_id="formulas", question="Which?", options=[(f"o{i}", label) for i, label in enumerate(labels)]
    )
    table = rows(DjangoClient().get("/api/polls/formulas/results.csv"))
    assert [label for _, label, _, _ in table[1:]] == [
        '\'=HYPERLINK("http://evil.example")',
        "'+1+1",
        "'-2+3",
        "'@SUM(A1)",
        'Plain, "quoted"',
    ]


@pytest.mark.parametrize(
    ("url", "query", "status"),
    [
        ("/api/counters/no-such-counter/history.csv", {}, 404),
        ("/api/counters/UPPER/history.csv", {}, 400),
        ("/api/counters/docs/history.csv", {"window": "7d"}, 400),
        ("/api/counters/docs/history.csv", {"window": "90d", "step": "1m"}, 400),
        ("/api/counters/docs/history.csv", {"series": "visitors", "window": "1h"}, 400),
        ("/api/counters/docs/history.csv", {"series": "votes"}, 400),
        ("/api/polls/no-such-poll/results.csv", {}, 404),
        ("/api/polls/UPPER/results.csv", {}, 400),
    ],
)
def test_bad_names_and_windows_get_json_errors(memory_demo_store, url, query, status):
    response = DjangoClient().get(url, query)
    assert response.status_code == status
    assert set(response.json()) == {"error", "detail"}
