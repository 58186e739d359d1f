"""Request bodies the API reads: the content types each endpoint takes, each one read strictly.

A type outside an endpoint's list is a 415; a body that is not what its type says (or a type header
that cannot be read, such as multipart without a boundary) is a 400. Either way the view has done
nothing yet. An empty body is no body, whatever type it declares (clients send one on DELETE).
"""

from __future__ import annotations

import re

from django.http import HttpRequest
from django.http.multipartparser import MultiPartParserError
from django.http.request import RawPostDataException

from counters.exceptions import InvalidInput
from counters.web.input.input_text import checked_text, utf8_text
from counters.web.input.strict_json import loads_strict
from counters.web.input.urlencoded import decoded_pairs, unique_fields

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data"
TEXT = "text/plain"
UNTYPED = ""  # no Content-Type header
UTF8 = frozenset({"utf-8", "utf8"})
# RFC 2046: 1 to 70 of these characters, the last not a space.
BOUNDARY = re.compile(r"[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]")


class UnsupportedMediaType(InvalidInput):
    """A body of a content type (or charset) the endpoint does not read."""


def read_body(request: HttpRequest, *, accept: frozenset[str]) -> object:
    """The body parsed by its type ({} when empty); UnsupportedMediaType or InvalidInput if unreadable."""
    media = request.content_type or UNTYPED
    if media.startswith("multipart/"):
        check_boundary(request)
    raw = body_bytes(request)
    if raw is not None and not raw:
        return {}
    if media not in accept:
        readable = ", ".join(sorted(kind for kind in accept if kind)) or "no body"
        raise UnsupportedMediaType(f"This endpoint reads {readable}, not {media or 'an untyped body'}.")
    charset = request.content_params.get("charset")
    if charset is not None and charset.lower() not in UTF8:
        raise UnsupportedMediaType("Send the body as UTF-8 (charset=utf-8, or no charset).")
    if media == JSON:
        return loads_strict(raw)
    if media == FORM:
        return unique_fields(decoded_pairs(raw, what="form"), what="form")
    if media == MULTIPART:
        return multipart_fields(request, raw)
    if media == TEXT:
        return utf8_text(raw, what="body")
    return {}  # untyped: accepted unread


def body_bytes(request: HttpRequest) -> bytes | None:
    """The body (its size checked by `json_api`), or None if a form parser has streamed it already."""
    try:
        return request.body
    except RawPostDataException:
        # Only a form is parsed ahead of the view (CsrfViewMiddleware reads request.POST).
        return None


def check_boundary(request: HttpRequest) -> None:
    """Refuse a multipart type without a usable boundary: its body could not be split into parts."""
    boundary = request.content_params.get("boundary")
    if not boundary or not BOUNDARY.fullmatch(boundary):
        raise InvalidInput("A multipart Content-Type needs a boundary of 1 to 70 plain characters.")


def multipart_fields(request: HttpRequest, raw: bytes | None) -> dict[str, str]:
    """A multipart form's fields, each name once and without NULs; InvalidInput if it is not well framed."""
    # Django's parser skips what it cannot frame; the closing delimiter shows the body was whole.
    closing = b"--" + request.content_params["boundary"].encode("ascii") + b"--"
    if raw is not None and closing not in raw:
        raise InvalidInput("The multipart body does not end with its closing boundary.")
    try:
        form, files = request.POST, request.FILES
    except MultiPartParserError as exc:
        raise InvalidInput("The multipart body cannot be read.") from exc
    pairs = [(name, value) for name, values in form.lists() for value in values]
    pairs += [(name, upload.name or "") for name, uploads in files.lists() for upload in uploads]
    for name, value in pairs:
        checked_text(name, what="form")
        checked_text(value, what="form")
    return unique_fields(pairs, what="form")
