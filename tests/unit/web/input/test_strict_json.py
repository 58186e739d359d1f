"""The strict JSON reader: what it refuses, and that it reads ordinary JSON as json.loads does."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from counters.exceptions import InvalidInput
from counters.web.input.strict_json import MAX_DEPTH, loads_strict, nesting_depth


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ("[]", 1),
        ('{"a": [1, {"b": []}]}', 4),
        ('["[[[[", "]]", "\\"[{"]', 1),  # brackets inside strings, and an escaped quote
    ],
)
def test_nesting_depth_counts_brackets_outside_strings(text, depth):
    assert nesting_depth(text) == depth


@pytest.mark.parametrize(
    "raw",
    [
        b"[" * 1000,
        b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
        b'{"a": 1, "a": 2}',
        b"9007199254740993",
        b"1" + b"0" * 5000,
        b"1e999",
        b"-Infinity",
        b"NaN",
        b'"a\\u0000b"',
        b'{"\\u0000": 1}',
        b'"\\udc00"',
        b'"\xff"',
        b"\xef\xbb\xbf{}",
        b"{",
    ],
)
def test_refuses_what_the_api_would_not_read_the_same_way(raw):
    with pytest.raises(InvalidInput):
        loads_strict(raw)


# Values within the bounds: text without NULs or surrogates, integers and floats within 2**53.
plain = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(min_value=-(2.0**53), max_value=2.0**53, allow_nan=False)
    | st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00")), inner
        )
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(value=plain)
def test_reads_plain_json_as_json_loads_does(value):
    raw = json.dumps(value).encode()
    if nesting_depth(raw.decode()) <= MAX_DEPTH:
        assert loads_strict(raw) == json.loads(raw)
