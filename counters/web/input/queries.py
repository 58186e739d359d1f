"""Query-string parameters an endpoint reads: percent-encoded UTF-8, no NUL, each given once."""

from __future__ import annotations

from django.http import HttpRequest

from counters.exceptions import InvalidInput
from counters.web.input.urlencoded import decoded_pairs, unique_fields


def query_params(request: HttpRequest, *names: str) -> dict[str, str]:
    """The values of `names` in the query (absent ones left out); InvalidInput for a query that is not clean.

    Other parameters (a cache-buster on a badge URL) are let through unread, but must decode too.
    """
    query = request.META.get("QUERY_STRING", "")
    # RFC 3986 allows only ASCII in a URL; browsers percent-encode the rest. The WSGI and ASGI handlers
    # decode raw bytes differently (latin-1, UTF-8), so raw non-ASCII could not be read the same way.
    if not query.isascii():
        raise InvalidInput("Percent-encode the query string (it holds characters that are not ASCII).")
    pairs = decoded_pairs(query.encode("ascii"), what="query string")
    fields = unique_fields(pairs, what="query string", names=names)
    return {name: fields[name] for name in names if name in fields}
