"""`a=1&b=2` text (form bodies and query strings) decoded strictly: UTF-8, no NUL, each name once."""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import unquote_to_bytes

from counters.exceptions import InvalidInput
from counters.web.input.input_text import utf8_text

# Far beyond what any endpoint reads; Django's own cap on a form is 1,000 fields.
MAX_FIELDS = 100


def decoded_pairs(raw: bytes, *, what: str) -> list[tuple[str, str]]:
    """Every `name=value` field of `raw`, percent-decoded as strict UTF-8; InvalidInput otherwise."""
    fields = [field for field in raw.split(b"&") if field]
    if len(fields) > MAX_FIELDS:
        raise InvalidInput(f"The {what} has more than {MAX_FIELDS} fields.")
    pairs = []
    for field in fields:
        name, _, value = field.partition(b"=")
        pairs.append((_decoded(name, what), _decoded(value, what)))
    return pairs


def _decoded(part: bytes, what: str) -> str:
    """One name or value: '+' is a space, %XX a byte, and the bytes UTF-8."""
    return utf8_text(unquote_to_bytes(part.replace(b"+", b" ")), what=what)


def unique_fields(pairs: list[tuple[str, str]], *, what: str, names: Collection[str] | None = None) -> dict:
    """The pairs as a dict; InvalidInput if a name (of `names`, default any) is given twice."""
    fields: dict[str, str] = {}
    for name, value in pairs:
        if name in fields and (names is None or name in names):
            raise InvalidInput(f"The {what} gives {name[:64]!r} more than once.")
        fields[name] = value
    return fields
