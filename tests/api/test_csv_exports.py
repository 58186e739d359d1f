"""CSV exports: they parse with Python's csv, match the JSON answers, and carry no spreadsheet formula."""

from __future__ import annotations

import csv
import io
import time

import pytest
from django.test import Client

from counters import services
from counters.domain.buckets import HOUR, MINUTE

NOW = time.time()


def rows(response) -> list[list[str]]:
    """The CSV answer parsed by Python's csv module."""
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="')
    return list(csv.reader(io.StringIO(response.content.decode("utf-8"), newline="")))


class StillClock:
    """A clock that reads NOW, always."""

    def time(self) -> float:
        """NOW."""
        return NOW


@pytest.fixture
def fixed_clock(process_runtime):
    """The JSON and the CSV read the same buckets, whatever minute the test runs across."""
    process_runtime.give("clock", StillClock())


@pytest.fixture
def views(demo_store) -> None:
    """Views of `docs` now (4), 3 minutes ago (3) and 5 hours ago (5), written as the history writer does."""
    for seconds_ago, count in ((0, 4), (180, 3), (5 * 3600, 5)):
        at = NOW - seconds_ago
        for resolution in (MINUTE, HOUR):
            start = resolution.start_of(at)
            demo_store.add_to_bucket(
                "docs", resolution.key(start), count, expires_at=resolution.expires_at(start)
            )


@pytest.mark.parametrize(("window", "total"), [("1h", 7), ("48h", 12), ("90d", 12)])
def test_history_csv_has_the_json_buckets_and_sums_to_its_total(fixed_clock, views, window, total):
    client = Client()
    history = client.get("/api/counters/docs/history", {"window": window}).json()
    table = rows(client.get("/api/counters/docs/history.csv", {"window": window}))

    assert table[0] == ["start", "count"]
    assert [[point["start"], str(point["count"])] for point in history["points"]] == table[1:]
    assert sum(int(count) for _, count in table[1:]) == history["total"] == total
    assert all(start.endswith("Z") and "T" in start for start, _ in table[1:]), "ISO 8601 UTC times"


def test_history_csv_defaults_to_the_last_hour(fixed_clock, views):
    table = rows(Client().get("/api/counters/docs/history.csv"))
    assert len(table) == 1 + 60


def test_poll_results_parse_and_add_up_to_the_polls_total(demo_store):
    for voter, option in [("a", "python"), ("b", "python"), ("c", "python"), ("d", "go")]:
        services.vote_cast(poll_id="language", voter=voter, option=option)
    client = Client()
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


def test_a_poll_without_votes_has_no_share_yet(demo_store):
    table = rows(Client().get("/api/polls/deploy/results.csv"))
    assert {share for *_, share in table[1:]} == {"0.0"}


def test_labels_that_a_spreadsheet_would_run_are_written_as_text(demo_store):
    labels = ['=HYPERLINK("http://evil.example")', "+1+1", "-2+3", "@SUM(A1)", 'Plain, "quoted"']
    services.poll_create(
        poll_id="formulas", question="Which?", options=[(f"o{i}", label) for i, label in enumerate(labels)]
    )
    table = rows(Client().get("/api/polls/formulas/results.csv"))
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
        ("/api/polls/no-such-poll/results.csv", {}, 404),
        ("/api/polls/UPPER/results.csv", {}, 400),
    ],
)
def test_bad_names_and_windows_get_json_errors(demo_store, url, query, status):
    response = Client().get(url, query)
    assert response.status_code == status
    assert set(response.json()) == {"error", "detail"}
