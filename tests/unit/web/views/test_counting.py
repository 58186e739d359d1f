"""The reusable pieces: the view-counting decorator, the mixin, and the template tags."""

from __future__ import annotations

import pytest
from django.http import Http404, HttpResponse
from django.template import Context, Template
from django.test import RequestFactory
from django.views import View

from counters.domain.values import CounterDefinition
from counters.exceptions import StoreUnavailable
from counters.web.views.counting import CountedViewMixin, count_view


@count_view("welcome")
def welcome(request):
    return HttpResponse(str(request.counter.value))


@count_view(lambda request, slug: slug)
def by_slug(request, slug):
    return HttpResponse(str(request.counter.value))


class ArticleView(CountedViewMixin, View):
    def get(self, request, slug):
        return HttpResponse(f"{self.get_counter_name()}={request.counter.value}")

    def post(self, request, slug):
        return HttpResponse(f"counted={request.counter is not None}")


def test_decorator_counts_each_get(memory_demo_store):
    factory = RequestFactory()
    assert welcome(factory.get("/")).content == b"1"
    assert welcome(factory.get("/")).content == b"2"
    assert by_slug(factory.get("/"), slug="docs").content == b"1"
    assert memory_demo_store.get("welcome").value == 2


def test_decorator_raises_404_for_unregistered_page(memory_demo_store):
    with pytest.raises(Http404):
        by_slug(RequestFactory().get("/"), slug="unregistered")


def test_mixin_counts_gets_only(memory_demo_store):
    factory = RequestFactory()
    view = ArticleView.as_view()
    assert view(factory.get("/"), slug="docs").content == b"docs=1"
    assert view(factory.post("/"), slug="docs").content == b"counted=False"
    assert memory_demo_store.get("docs").value == 1


def test_store_outage_leaves_the_page_rendering(memory_demo_store, monkeypatch):
    def unavailable(*args, **kwargs):
        raise StoreUnavailable("down")

    monkeypatch.setattr(memory_demo_store, "increment", unavailable)

    @count_view("welcome")
    def page(request):
        return HttpResponse(f"unavailable={request.counter_unavailable}")

    assert page(RequestFactory().get("/")).content == b"unavailable=True"


def test_template_tags_show_counts(memory_store):
    memory_store.define_counter(CounterDefinition(name="promo", kind="views", start=1041))
    memory_store.increment("promo", kind="views")
    html = Template('{% load counters %}{% counter_value "promo" %}|{% live_counter "promo" %}').render(
        Context()
    )
    # The raw value for scripts, the text with separators for people (live.js writes it the same way).
    assert (
        html
        == '1042|<span class="count" data-value="1042" data-counter="promo" data-version="1">1,042</span>'
    )
    missing = Template('{% load counters %}{% counter_value "ghost" %}').render(Context())
    assert missing == "–"
