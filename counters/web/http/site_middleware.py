"""Count every HTML page the site serves, with no registration: on with COUNTERS_SITE_PAGES.

A successful (200) HTML answer to a GET counts one view of its path (docs/whole-site.md): the query
is dropped, `/docs/` and `/docs` are one page, and the page's counter is created at its first view
under the site's cap, titled from the page's <title>. Paths the rules leave out (the admin, static
files, the API, COUNTERS_SITE_EXCLUDE) never count, nor do errors, redirects, HEADs and views that
count themselves (`count_view`, CountedViewMixin). The answer waits for the view's write, as every
counted view does, and a page always renders whatever happens to its count.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from counters import conf
from counters.domain.page_rules import page_title
from counters.exceptions import CounterError, InvalidInput
from counters.services.site_pages import site_pages, site_view_record
from counters.web.http.visitors import client_of, source_from

logger = logging.getLogger(__name__)


class SitePagesMiddleware:
    """Count each successful HTML GET by its path, creating the page's counter at its first view."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if conf.site_pages() and is_page_view(request, response):
            count_page(request, response)
        return response


def is_page_view(request: HttpRequest, response: HttpResponse) -> bool:
    """A GET answered 200 with a whole HTML page that no counting view counted already."""
    return (
        request.method == "GET"
        and response.status_code == 200
        and not response.streaming
        and response.get("Content-Type", "").startswith("text/html")
        # `record_view_for` sets `request.counter` (even to None) whenever a counting view ran.
        and not hasattr(request, "counter")
    )


def count_page(request: HttpRequest, response: HttpResponse) -> None:
    """Count the view of the request's path; the answer goes out whatever happens to the count."""
    try:
        page = site_pages().page_for(request.path)
    except InvalidInput:
        return  # a path too long or with control characters is no page
    if page is None:
        return
    try:
        site_view_record(
            page=page,
            title=page_title(response.content),
            source=source_from(request),
            client=client_of(request),
        )
    except CounterError as exc:
        # Refused at the cap (logged there), or the store is unavailable: the page renders uncounted.
        logger.info("A view of %s was not counted: %s", page.path[:200], exc.detail)
