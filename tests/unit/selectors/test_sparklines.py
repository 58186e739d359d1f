"""The dashboard's sparklines in one read: the same series each page's own history answers, for many pages."""

from __future__ import annotations

import time

import pytest

from counters import selectors
from counters.background.history_writer import HistoryRecorder
from counters.exceptions import InvalidInput
from counters.selectors.sparklines import MAX_NAMES


def test_one_read_answers_as_each_pages_history_does(memory_demo_store):
    now = time.time()
    recorder = HistoryRecorder(memory_demo_store)
    recorder.record(name="docs", count=3, at=now - 120)
    recorder.record(name="welcome", count=1, at=now - 60)
    recorder.flush()
    found = selectors.sparklines(views=["docs", "welcome", "docs"], visitors=["docs", "_site"], now=now)
    assert [history.name for history in found["views"]] == ["docs", "welcome"], "each name once, in order"
    for history in found["views"]:
        alone = selectors.counter_history(name=history.name, window="1h", step="1m", now=now)
        assert history.as_dict() == alone.as_dict()
    assert sum(found["views"][0].counts) == 3
    visitors = [(h.name, h.series, len(h.counts)) for h in found["visitors"]]
    assert visitors == [("docs", "visitors", 90), ("_site", "visitors", 90)]


def test_a_page_that_is_gone_has_an_empty_line_not_an_error(memory_demo_store):
    (gone,) = selectors.sparklines(views=["no-such-page"], visitors=[])["views"]
    assert sum(gone.counts) == 0 and len(gone.counts) == 60


@pytest.mark.parametrize(
    ("views", "visitors"),
    [([f"p{i}" for i in range(MAX_NAMES + 1)], []), (["language.go"], []), ([], ["Not a name"])],
)
def test_too_many_names_a_poll_option_or_a_bad_name_are_refused(memory_demo_store, views, visitors):
    with pytest.raises(InvalidInput):
        selectors.sparklines(views=views, visitors=visitors)
