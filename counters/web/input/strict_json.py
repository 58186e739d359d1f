"""JSON bodies parsed strictly: bounded nesting and numbers, no duplicate keys, no NaN, clean strings."""

from __future__ import annotations

import json
import math
import re

from counters.exceptions import InvalidInput
from counters.web.input.input_text import checked_text, utf8_text

# The API's bodies are flat objects; the bound keeps the parser's recursion far from Python's limit.
MAX_DEPTH = 8
# Integers a JavaScript client reads exactly (2**53), and floats no larger than those.
MAX_MAGNITUDE = 2**53
STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
BRACKETS = re.compile(r"[\[\]{}]")


def nesting_depth(text: str) -> int:
    """How deep arrays and objects nest in `text` (brackets inside strings do not count)."""
    depth = deepest = 0
    for bracket in BRACKETS.finditer(STRINGS.sub("", text)):
        depth += 1 if bracket.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def loads_strict(raw: bytes) -> object:
    """Parse a UTF-8 JSON body; InvalidInput (a 400) for anything the API would not read the same way."""
    text = utf8_text(raw, what="body")
    if nesting_depth(text) > MAX_DEPTH:
        raise InvalidInput(f"The body's JSON nests deeper than {MAX_DEPTH} levels.")
    try:
        data = json.loads(
            text,
            object_pairs_hook=_unique_object,
            parse_int=_bounded_int,
            parse_float=_bounded_float,
            parse_constant=_no_constant,
        )
    except ValueError as exc:
        raise InvalidInput("The body is not valid JSON.") from exc
    _check_strings(data)
    return data


def _unique_object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """An object whose keys each appear once (parsers disagree on which duplicate wins)."""
    data = dict(pairs)
    if len(data) != len(pairs):
        raise InvalidInput("A key appears twice in one JSON object.")
    return data


def _bounded_int(digits: str) -> int:
    """An integer no larger than 2**53, refused before Python converts a long digit string."""
    if len(digits) > 17 or abs(number := int(digits)) > MAX_MAGNITUDE:
        raise InvalidInput("A number in the body is larger than 2**53.")
    return number


def _bounded_float(text: str) -> float:
    """A finite float no larger than 2**53."""
    number = float(text)
    if not math.isfinite(number) or abs(number) > MAX_MAGNITUDE:
        raise InvalidInput("A number in the body is larger than 2**53.")
    return number


def _no_constant(name: str) -> float:
    """NaN and Infinity are not JSON."""
    raise InvalidInput(f"{name} is not a JSON number.")


def _check_strings(data: object) -> None:
    """Refuse NUL characters and lone surrogates in any key or string (escapes can spell both)."""
    if isinstance(data, str):
        checked_text(data, what="body")
    elif isinstance(data, dict):
        for key, value in data.items():
            checked_text(key, what="body")
            _check_strings(value)
    elif isinstance(data, list):
        for value in data:
            _check_strings(value)
