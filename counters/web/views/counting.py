"""Count views of any Django view: a decorator for functions, a mixin for class-based views."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse

from counters import services
from counters.exceptions import InvalidInput, StoreMisconfigured, StoreUnavailable, UnknownCounter
from counters.web.http.visitors import client_of, source_from

logger = logging.getLogger(__name__)
NameSource = str | Callable[..., str]


def no_such_page(request: HttpRequest) -> Http404:
    """The 404 a visitor reads for a page that is not counted here (never the store's wording)."""
    return Http404(f"There is no page at {request.path}. The dashboard lists every page of this site.")


def record_view_for(request: HttpRequest, name: str, *, registered_only: bool = True) -> None:
    """Count one view of `name` for a GET and leave the result on the request.

    `request.counter` holds the new CounterState, or None when the store is unavailable:
    the page still renders and says that counts are unavailable. An unknown name is a 404, unless
    `registered_only` is off: then the page renders uncounted (the dashboard of a table without it).
    `request.counter_name` names the page for its live socket (the base template passes it on), so
    the page counts as viewed now.
    """
    request.counter = None
    request.counter_unavailable = False
    # What is wrong with the store's settings, when that is why (the page's notice says it, not "try later").
    request.store_problem = ""
    request.counter_name = None
    if request.method != "GET":
        return
    try:
        request.counter = services.view_record(
            slug=name, client=client_of(request), source=source_from(request)
        )
    except (UnknownCounter, InvalidInput) as exc:
        if registered_only:
            raise no_such_page(request) from exc
        return  # rendered uncounted, and not announced as viewed now either
    except StoreUnavailable as exc:
        request.counter_unavailable = True
        request.store_problem = exc.detail if isinstance(exc, StoreMisconfigured) else ""
    request.counter_name = name


def count_view(name: NameSource, *, registered_only: bool = True) -> Callable:
    """Count a view of a registered page on every GET; `name` may be a callable of the view's args."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            counter = name(request, *args, **kwargs) if callable(name) else name
            try:
                record_view_for(request, counter, registered_only=registered_only)
            except Http404:
                if not callable(name):
                    # A fixed name is the developer's to register; a slug from the address is anyone's.
                    logger.warning(
                        "count_view(%r): no views counter of that name is registered; run "
                        "`python manage.py counters_register %s`.",
                        counter,
                        counter,
                    )
                raise
            return view(request, *args, **kwargs)

        # The same view without the count, so a benchmark can measure what counting adds.
        wrapped.uncounted = view
        return wrapped

    return decorate


class CountedViewMixin:
    """Count a view on every GET of a class-based view; the name is `counter_name` or the `slug` kwarg."""

    counter_name: str | None = None

    def get_counter_name(self) -> str:
        """Name of the page counter this view counts."""
        return self.counter_name or self.kwargs["slug"]

    def dispatch(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        """Count before the view runs so the template can show the new total."""
        self.request, self.args, self.kwargs = request, args, kwargs
        record_view_for(request, self.get_counter_name())
        return super().dispatch(request, *args, **kwargs)
