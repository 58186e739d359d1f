"""A first visit whose DynamoDB answer is lost: the view is answered as usual, the visitor counts once."""

from __future__ import annotations

import json
import time

import pytest
import requests

from counters.domain.visitors import visit_day
from counters.store.dynamodb.clients import RETRY_ATTEMPTS

pytestmark = pytest.mark.processes
VISIT_WRITE = "TransactWriteItems"
# The page's marker is in its first visit's transaction, in no other (the site's has `#_site#`).
VISIT_ONLY = ("SEEN#", "#docs#")
BROWSER = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"}


def visitors(store) -> int:
    return store.visitors_on(["docs"], day=visit_day(time.time())).get("docs", 0)


def test_a_lost_answer_is_resent_with_its_token_and_counts_the_visitor_once(proxied_site, proxy, demo_store):
    before = visitors(demo_store)
    proxy.arm("lost_response", operation=VISIT_WRITE, contains=VISIT_ONLY, times=1)

    for _ in range(2):
        assert requests.get(f"{proxied_site.url}/pages/docs/", headers=BROWSER, timeout=30).status_code == 200

    sent = [
        seen
        for seen in proxy.seen
        if seen.operation == VISIT_WRITE and all(part in seen.body for part in VISIT_ONLY)
    ]
    assert [seen.action for seen in sent] == ["lost_response", "forward"], "the repeat cost no transaction"
    assert len({json.loads(seen.body)["ClientRequestToken"] for seen in sent}) == 1
    assert visitors(demo_store) == before + 1
    assert demo_store.get("docs").value == 2


def test_an_answer_lost_on_every_attempt_keeps_the_view_and_never_counts_twice(
    proxied_site, proxy, demo_store
):
    before = visitors(demo_store)
    proxy.arm("lost_response", operation=VISIT_WRITE, contains=VISIT_ONLY, times=RETRY_ATTEMPTS)

    first = requests.get(f"{proxied_site.url}/pages/docs/", headers=BROWSER, timeout=30)

    assert first.status_code == 200, "the view counted; the visitor is the store's business"
    assert visitors(demo_store) == before + 1, "the first attempt committed"
    assert "A visitor of docs may not be counted yet" in proxied_site.log_text()
    # The site could not tell, so the next view tries again: the marker refuses it.
    assert requests.get(f"{proxied_site.url}/pages/docs/", headers=BROWSER, timeout=30).status_code == 200
    assert proxy.count(VISIT_WRITE, contains=VISIT_ONLY) == RETRY_ATTEMPTS + 1
    assert visitors(demo_store) == before + 1
    assert demo_store.get("docs").value == 2
