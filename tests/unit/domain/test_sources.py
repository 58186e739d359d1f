"""Sources of a view: a referrer's domain or a utm_source label, never a full URL; bad input refused."""

from __future__ import annotations

import pytest

from counters.domain.sources import source_of
from counters.exceptions import InvalidInput

OWN = ["counters.example.com"]


@pytest.mark.parametrize(
    ("referrer", "utm", "source"),
    [
        ("https://www.Example.org/path?secret=1", None, "example.org"),
        ("http://news.example.net:8080/", "", "news.example.net"),
        ("https://example.org/", "Newsletter", "utm:newsletter"),
        (None, "spring sale", "utm:spring sale"),
        ("https://counters.example.com/pages/docs/", None, None),  # moving within the site
        ("https://www.counters.example.com/", None, None),
        ("", None, None),
    ],
)
def test_the_source_is_a_domain_or_a_label(referrer, utm, source):
    assert source_of(referrer=referrer, utm=utm, own_hosts=OWN) == source


@pytest.mark.parametrize(
    "referrer",
    [
        "not a url",
        "ftp://example.org/",
        "https://",
        "https://exa mple.org/",
        "javascript:alert(1)",
        "https://example.org/\x00",
        "https://" + "a" * 2050 + ".org/",
        42,
        "https://[::1/",
    ],
)
def test_a_malformed_referrer_is_refused(referrer):
    with pytest.raises(InvalidInput):
        source_of(referrer=referrer, utm=None, own_hosts=OWN)


@pytest.mark.parametrize("utm", ["<script>", "a" * 65, "x\ny", 3])
def test_a_malformed_utm_source_is_refused(utm):
    with pytest.raises(InvalidInput):
        source_of(referrer=None, utm=utm, own_hosts=OWN)
