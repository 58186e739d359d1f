"""Where a view came from: the referrer's domain or the page's `utm_source`, never a full URL (no I/O).

A view has at most one source: its `utm_source` when the page's address carries one (a campaign
names itself), else the domain of the referrer, lowercased and without a leading `www.`. A referrer
on the site's own hosts is no source (moving between one's own pages is not arriving), nor is a view
with no referrer. What is kept is that short label only: no path, query or full URL is ever stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from counters.exceptions import InvalidInput

MAX_REFERRER_LENGTH = 2048
MAX_SOURCE_LENGTH = 64
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# A host name as DNS allows it (letters, digits, hyphens, dots), or an IPv4 address.
HOST = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$")
# A campaign's label: printable, short; kept lowercase so "Newsletter" and "newsletter" are one.
UTM = re.compile(r"^[\w.\-+ ]{1,64}$")
UTM_PREFIX = "utm:"


def referrer_domain(raw: object) -> str | None:
    """The domain of an absolute http(s) referrer, None for none; InvalidInput if it is malformed."""
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str) or len(raw) > MAX_REFERRER_LENGTH or CONTROL.search(raw):
        raise InvalidInput(f"A referrer is an http(s) URL of at most {MAX_REFERRER_LENGTH} characters.")
    try:
        parts = urlsplit(raw)
        host = (parts.hostname or "").rstrip(".")
    except ValueError as exc:
        raise InvalidInput("The referrer is not a readable URL.") from exc
    if parts.scheme not in ("http", "https") or not HOST.fullmatch(host):
        raise InvalidInput("A referrer is an absolute http(s) URL with a host name.")
    return host.removeprefix("www.")


def utm_source(raw: object) -> str | None:
    """A `utm_source` label (lowercased), None for none; InvalidInput if it is not a short label."""
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str) or not UTM.fullmatch(raw.strip()):
        raise InvalidInput(
            f"A utm_source is 1 to {MAX_SOURCE_LENGTH} letters, digits, spaces or '.', '-', '_', '+'."
        )
    return raw.strip().lower()


def source_of(*, referrer: object, utm: object, own_hosts: Iterable[str]) -> str | None:
    """The view's one source: `utm:<label>`, else the referrer's domain unless it is the site's own."""
    domain = referrer_domain(referrer)  # validated even when a utm_source wins: bad input is a 400
    label = utm_source(utm)
    if label is not None:
        return UTM_PREFIX + label
    if domain is None:
        return None
    own = {host.lower().rstrip(".").removeprefix("www.") for host in own_hosts}
    return None if domain in own else domain
