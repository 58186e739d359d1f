"""Visitors and bots through every counted path: the decorator, the mixin, the pages and the beacon."""

from __future__ import annotations

from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.views import View

from counters import selectors
from counters.web.views.counting import CountedViewMixin, count_view

BROWSER = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Safari/605.1.15"
)
PREVIEW = "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"


@count_view("welcome")
def welcome(request):
    return HttpResponse(str(request.counter.value))


class ArticleView(CountedViewMixin, View):
    def get(self, request, slug):
        return HttpResponse(str(request.counter.value))


def numbers(name: str) -> tuple[int, int, int]:
    """Views, unique visitors today and bot views of a page."""
    state = selectors.counter_detail(name=name)
    return state.value, state.visitors_today, state.bot_views


def test_decorator_and_mixin_count_visitors_by_address_and_agent(memory_demo_store):
    factory = RequestFactory()
    view = ArticleView.as_view()
    for address in ("192.0.2.1", "192.0.2.2", "192.0.2.1"):
        welcome(factory.get("/", REMOTE_ADDR=address, HTTP_USER_AGENT=BROWSER))
        view(factory.get("/", REMOTE_ADDR=address, HTTP_USER_AGENT=BROWSER), slug="docs")
    welcome(factory.get("/", REMOTE_ADDR="192.0.2.1", HTTP_USER_AGENT=PREVIEW))
    assert numbers("welcome") == (3, 2, 1)
    assert numbers("docs") == (3, 2, 0)


def test_pages_and_beacon_know_the_client_behind_our_proxy(memory_demo_store, settings):
    settings.COUNTERS_PROXY_COUNT = 1
    browser = Client(enforce_csrf_checks=True, HTTP_USER_AGENT=BROWSER)
    browser.get("/pages/welcome/", HTTP_X_FORWARDED_FOR="203.0.113.9")
    token = browser.cookies["csrftoken"].value
    # Same loopback REMOTE_ADDR for all: only the address our proxy appended tells the visitors apart;
    # what the client itself put before it is not believed.
    for forwarded in ("203.0.113.1", "203.0.113.2", "192.0.2.200, 203.0.113.2"):
        browser.get("/pages/docs/", HTTP_X_FORWARDED_FOR=forwarded)
        answer = browser.post("/api/views/docs", HTTP_X_CSRFTOKEN=token, HTTP_X_FORWARDED_FOR=forwarded)
        assert answer.status_code == 200
    assert answer.json()["bot_views"] == 0
    assert numbers("docs") == (6, 2, 0)
    bot = browser.post(
        "/api/views/docs", HTTP_X_CSRFTOKEN=token, HTTP_X_FORWARDED_FOR="203.0.113.3", HTTP_USER_AGENT=PREVIEW
    ).json()
    assert (bot["value"], bot["bot_views"]) == (6, 1)
    assert numbers("docs") == (6, 2, 1)


def test_the_api_shows_visitors_and_bot_views_of_view_counters_only(memory_demo_store):
    client = Client(HTTP_USER_AGENT=BROWSER)
    client.get("/pages/docs/")
    listed = {counter["name"]: counter for counter in client.get("/api/counters").json()["counters"]}
    assert (listed["docs"]["value"], listed["docs"]["visitors_today"], listed["docs"]["bot_views"]) == (
        1,
        1,
        0,
    )
    assert "visitors_today" not in listed["language.python"] and "bot_views" not in listed["language.python"]
    detail = client.get("/api/counters/docs").json()
    assert (detail["visitors_today"], detail["bot_views"]) == (1, 0)


def test_history_has_a_daily_visitors_series(memory_demo_store):
    client = Client(HTTP_USER_AGENT=BROWSER)
    client.get("/pages/docs/", REMOTE_ADDR="192.0.2.1")
    client.get("/pages/docs/", REMOTE_ADDR="192.0.2.2")
    history = client.get("/api/counters/docs/history?series=visitors").json()
    assert (history["series"], history["window"], history["resolution"]) == ("visitors", "90d", "day")
    assert (len(history["points"]), history["points"][-1]["count"], history["total"]) == (90, 2, 2)
    assert client.get("/api/counters/docs/history?series=visitors&window=90d").status_code == 200
    assert client.get("/api/counters/docs/history").json()["series"] == "views"
    for query in ("series=visitors&window=1h", "series=people"):
        refused = client.get(f"/api/counters/docs/history?{query}")
        assert (refused.status_code, refused.json()["error"]) == (400, "invalid")
