"""Fuzzing every endpoint: never a 500 or a traceback, and refused requests write nothing."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from django.test import Client
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from counters.domain.names import SLUG_PATTERN
from tests.support.reliability import csrf_client

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
KNOWN = ["docs", "welcome", "pricing", "dashboard", "language", "language.python", "deploy.aws"]
TRICKY = [
    "",
    ".",
    "..",
    "../admin",
    "docs/../welcome",
    "%2e%2e",
    "%2F",
    "docs%00",
    "docs\x00",
    "DOCS",
    "dócs",
    "ｄｏｃｓ",
    "docs\n",
    " docs",
    "docs ",
    "a" * 65,
    "a" * 5000,
    "C#docs",
    "REGISTRY",
    "TOTAL",
    "docs.",
    ".docs",
    "language.",
    "language.python.extra",
    "docs;drop",
    "<script>alert(1)</script>",
    "docs?window=1h",
    "\u202edocs",
    "😀",
    "\ud7ff",
    "IDEM#x",
]
names = st.one_of(
    st.sampled_from(KNOWN),
    st.sampled_from(TRICKY),
    st.from_regex(SLUG_PATTERN, fullmatch=True),
    st.text(max_size=80),
)
# How a name goes into the path: fully escaped, or with '/', '.' and '%' left raw for path tricks.
safe_sets = st.sampled_from(["", "/", "/.%", "%"])
methods = st.sampled_from(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND"])
content_types = st.sampled_from(
    [
        "application/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=xyz",
        "multipart/form-data",
        "text/plain",
        "application/octet-stream",
        "",
        "application/json; charset=latin-1",
        "text/html; charset=nope",
        "application/json; charset=utf-32",
        "application/json; charset=utf-8",
        "text/plain; charset=utf-8",
        "application/xml",
        "multipart/form-data; boundary=",
        'multipart/form-data; boundary=""',
        "multipart/mixed; boundary=xyz",
    ]
)
# Any JSON value, nested up to 12 levels (the API reads 8), with the strings and numbers that trip parsers.
json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False),
        st.text(max_size=10),
        st.sampled_from(["python", "go", "\x00", "\ud800", "\ufeff"]),
    ),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=6), inner, max_size=2),
    max_leaves=16,
)
ODD_BODIES = [
    b"[" * 1000,
    b'{"a":' * 200,
    b"[" * 9 + b"]" * 9,
    b'{"option": "python", "option": "go"}',
    b'{"option": "python", "n": 1' + b"0" * 600 + b"}",
    b'{"option": 1e999}',
    b'{"option": NaN}',
    b'{"option": "python", "x": "\\ud800"}',
    b'{"option": "py\\u0000thon"}',
    b'\xef\xbb\xbf{"option": "python"}',
    b'{"option": "pyth\xffon"}',
    b"option=python%00",
    b"option=%ff",
    b"option=python&option=python",
    b"\x00" * 64,
]
bodies = st.one_of(
    st.binary(max_size=2048),
    st.text(max_size=512).map(str.encode),
    st.sampled_from(
        [
            b'{"option": "python"}',
            b'{"option": ["python"]}',
            b'{"option": null}',
            b"option=python&option=go",
            b'{"option": "' + b"x" * 4000 + b'"}',
            b"[" * 2000,
            b'{"__proto__": {"option": "go"}}',
            b'--xyz\r\nContent-Disposition: form-data; name="option"\r\n\r\npython\r\n--xyz--\r\n',
            b'--xyz\r\nContent-Disposition: form-data; name="f"; filename="../../x"\r\n\r\n...',
            *ODD_BODIES,
        ]
    ),
    json_values.map(lambda value: json.dumps(value).encode()),
)
queries = st.one_of(
    st.just(""),
    st.sampled_from(
        [
            "window=1h",
            "window=48h",
            "window=90d",
            "window=",
            "window=1h&window=90d",
            "window=%00",
            "window=%ff",
            "window=1h&step=1m&step=1m",
            "series=views&series=visitors",
            "window=caf\u00e9",
        ]
    ),
    st.binary(max_size=40).map(lambda raw: quote(raw, safe="=&")),
    st.text(max_size=60).map(lambda text: quote(text, safe="=&")),
)
# Every route, with where a fuzzed name goes.
TEMPLATES = [
    "/",
    "/pages/{}/",
    "/api/counters",
    "/api/counters/{}",
    "/api/counters/{}/history",
    "/api/counters/{}/history.csv",
    "/badge/{}.svg",
    "/api/views/{}",
    "/api/polls",
    "/api/polls/{}/vote",
]


@pytest.fixture
def browser(demo_store) -> Client:
    """A CSRF-checked client holding a token."""
    client = Client(enforce_csrf_checks=True, raise_request_exception=True)
    client.get("/pages/welcome/")
    client.defaults["HTTP_X_CSRFTOKEN"] = client.cookies["csrftoken"].value
    return client


@pytest.fixture
def addresses() -> Iterator[str]:
    """A new client address for every call of next()."""
    return (f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}" for n in itertools.count(1))


def totals(store) -> dict[str, tuple[int, int]]:
    """Every counter's value and version."""
    return {state.name: (state.value, state.version) for state in store.list_counters()}


def check_answer(response, path: str) -> None:
    """No server error, no traceback; API errors are the contract's JSON."""
    assert response.status_code < 500, (path, response.status_code, response.content[:300])
    assert b"Traceback" not in response.content
    assert b'File "/' not in response.content
    if path.startswith("/api/") and response.status_code >= 400 and response.content:
        body = response.json()
        assert set(body) == {"error", "detail"}, body


def check_writes(before: dict, after: dict, response, method: str, path: str) -> None:
    """A refused request changed nothing; an accepted one changed only what it named, by one."""
    changed = {
        name: (before.get(name), after.get(name))
        for name in before.keys() | after.keys()
        if before.get(name) != after.get(name)
    }
    if response.status_code >= 300 or method not in {"GET", "POST", "DELETE"}:
        assert changed == {}, (method, path, response.status_code, changed)
        return
    assert set(after) == set(before), "no request creates counters"
    for name, (old, new) in changed.items():
        assert abs(new[0] - old[0]) == 1 and new[1] == old[1] + 1, (name, old, new)
        target = "/dashboard" if path == "/" else path  # the dashboard counts itself
        assert quote(name.split(".")[0], safe="") in target, (name, path)
    assert len(changed) <= 2, changed  # a view, or a vote moving from one option to another


@FUZZ
@given(template=st.sampled_from(TEMPLATES), name=names, safe=safe_sets, method=methods, query=queries)
def test_any_method_on_any_route_with_any_name(browser, demo_store, template, name, safe, method, query):
    path = template.format(quote(name, safe=safe))
    url = f"{path}?{query}" if query else path
    before = totals(demo_store)

    response = browser.generic(method, url)

    check_answer(response, path)
    check_writes(before, totals(demo_store), response, method, path)


@FUZZ
@given(
    template=st.sampled_from(["/api/views/{}", "/api/polls/{}/vote"]),
    name=names,
    method=st.sampled_from(["POST", "DELETE"]),
    content_type=content_types,
    body=bodies,
    with_token=st.booleans(),
    idempotency_key=st.one_of(st.none(), st.text(max_size=300)),
)
def test_writes_with_any_body_and_content_type(
    browser, demo_store, template, name, method, content_type, body, with_token, idempotency_key
):
    path = template.format(quote(name, safe=""))
    headers = {}
    if not with_token:
        headers["HTTP_X_CSRFTOKEN"] = ""
    if idempotency_key is not None:
        headers["HTTP_IDEMPOTENCY_KEY"] = idempotency_key.encode("utf-8", "replace").decode("latin-1")
    before = totals(demo_store)

    response = browser.generic(method, path, data=body, content_type=content_type, **headers)

    check_answer(response, path)
    if not with_token:
        # Refused by the CSRF check, or earlier: no route matches, the route does not take the method
        # (a 405 comes before CSRF), or the body cannot be read at all.
        assert response.status_code in {400, 403, 404, 405, 413}, response.status_code
    check_writes(before, totals(demo_store), response, method, path)


@pytest.mark.parametrize(
    "content_type", ["application/x-www-form-urlencoded", "application/json", "text/plain"]
)
@pytest.mark.parametrize("path", ["/api/views/docs", "/api/polls/language/vote"])
def test_oversized_bodies_are_refused_and_write_nothing(browser, demo_store, content_type, path):
    before = totals(demo_store)

    response = browser.generic(
        "POST", path, data=b"option=" + b"x" * (3 * 1024 * 1024), content_type=content_type
    )

    assert response.status_code == 413, response.status_code
    check_answer(response, path)
    assert totals(demo_store) == before


@FUZZ
@given(
    method=st.sampled_from(["POST", "DELETE"]),
    content_type=content_types,
    body=bodies,
    idempotency_key=st.one_of(st.none(), st.sampled_from(["", "ok-key", "has space", "é", "k" * 300])),
)
def test_a_refused_vote_spends_no_allowance(
    memory_demo_store, settings, addresses, method, content_type, body, idempotency_key
):
    settings.COUNTERS_VOTE_RATE = "1/h"
    address = next(addresses)  # each example has an allowance of its own
    client = csrf_client()
    headers = {"REMOTE_ADDR": address, "CONTENT_TYPE": content_type}
    if idempotency_key is not None:
        headers["HTTP_IDEMPOTENCY_KEY"] = idempotency_key.encode("utf-8").decode("latin-1")

    first = client.generic(
        method, "/api/polls/language/vote", data=body, content_type=content_type, **headers
    )
    assume(first.status_code in {400, 413, 415})  # refused as input, not by the limit or the store
    vote = client.post(
        "/api/polls/language/vote", {"option": "go"}, content_type="application/json", REMOTE_ADDR=address
    )

    assert vote.status_code == 200, (first.status_code, first.content[:200], vote.content[:200])
