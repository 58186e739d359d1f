"""Query parameters: read strictly, each read name once, other parameters let through."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from counters.exceptions import InvalidInput
from counters.web.input.queries import query_params


def params(query: str, *names: str) -> dict[str, str]:
    return query_params(RequestFactory().get("/", QUERY_STRING=query), *names)


def test_reads_the_named_parameters_and_leaves_others():
    assert params("window=1h&v=1&v=2&label=caf%C3%A9+au+lait", "window", "label", "step") == {
        "window": "1h",
        "label": "café au lait",
    }


@pytest.mark.parametrize(
    "query",
    [
        "window=1h&window=1h",
        "window=%00",
        "window=%ff",
        "window=%E2%82",
        "w=%ff",
        "window=caf\u00e9",
        "a&" * 101,
    ],
)
def test_refuses_a_query_that_is_not_clean(query):
    with pytest.raises(InvalidInput):
        params(query, "window")
