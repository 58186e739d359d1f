"""Expression attribute names and values from named parts (counters/store/dynamodb/expressions.py)."""

from __future__ import annotations

import pytest

from counters.store.dynamodb.expressions import named, typed


def test_names_take_a_hash_and_values_a_colon_each_typed_as_dynamodb_takes_it():
    assert named(pk="PK", value="value") == {"#pk": "PK", "#value": "value"}
    assert typed(one=1, now="2026-11-25T12:00:00+00:00", false=False, salt=b"\x01", n=-1) == {
        ":one": {"N": "1"},
        ":now": {"S": "2026-11-25T12:00:00+00:00"},
        ":false": {"BOOL": False},
        ":salt": {"B": b"\x01"},
        ":n": {"N": "-1"},
    }


def test_a_value_already_in_dynamodb_form_passes_unchanged_and_an_untypable_one_is_refused():
    assert typed(options={"L": []}) == {":options": {"L": []}}
    with pytest.raises(TypeError):
        typed(nothing=None)
