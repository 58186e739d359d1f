"""The visitor and bot numbers of the API (their shapes are checked against the document by schemathesis)."""

from __future__ import annotations

from django.test import Client

from counters.background import history_writer

BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
CRAWLER = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"


def test_counters_history_and_beacon_carry_visitors_and_bots_as_documented(memory_demo_store):
    client = Client(enforce_csrf_checks=True, HTTP_USER_AGENT=BROWSER)
    client.get("/pages/docs/")
    token = client.cookies["csrftoken"].value
    bot = client.post("/api/views/docs", HTTP_X_CSRFTOKEN=token, HTTP_USER_AGENT=CRAWLER)
    person = client.post("/api/views/docs", HTTP_X_CSRFTOKEN=token)
    history_writer.flush()
    listing = client.get("/api/counters")
    detail = client.get("/api/counters/docs")
    visitors = client.get("/api/counters/docs/history?series=visitors")
    views = client.get("/api/counters/docs/history?series=views&window=90d")
    for response in (bot, person, listing, detail, visitors, views):
        assert response.status_code == 200, response.content[:300]
    docs = next(counter for counter in listing.json()["counters"] if counter["name"] == "docs")
    assert (docs["value"], docs["visitors_today"], docs["bot_views"]) == (2, 1, 1)
    assert (bot.json()["value"], bot.json()["bot_views"]) == (1, 1)
    assert (visitors.json()["series"], visitors.json()["points"][-1]["count"]) == ("visitors", 1)
    assert views.json()["total"] == 2, "the bot's view is not in the views series"
