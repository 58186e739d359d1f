"""The demo site plus plain Django views no one registered a counter for (whole-site counting tests)."""

from django.http import Http404, HttpResponse, JsonResponse
from django.urls import include, path


def intro(request):
    """An ordinary HTML page of a project: nothing in it knows about counters."""
    return HttpResponse(
        "<!doctype html><html><head><title>Intro &amp; setup</title></head><body>Hi</body></html>"
    )


def chapter(request, number):
    """Any number of pages from one view."""
    return HttpResponse(f"<!doctype html><title>Chapter {number}</title><p>Chapter {number}</p>")


def missing(request):
    """A page that is not there."""
    raise Http404("No such chapter.")


def data(request):
    """A JSON answer is no page."""
    return JsonResponse({"ok": True})


urlpatterns = [
    path("guide/intro/", intro),
    path("guide/chapters/<int:number>/", chapter),
    path("guide/missing/", missing),
    path("guide/data/", data),
    path("", include("counters_site.urls")),
]
