"""Bound the live sockets one address and one browser may hold open on this worker.

Without a bound, one script opened 2,000 sockets from one address (about 27 KiB each) and every page
said "2,000 viewing". A socket is admitted while its address holds fewer than
COUNTERS_SOCKETS_PER_ADDRESS and its browser (the signed voter cookie, when it sends one) fewer than
COUNTERS_SOCKETS_PER_VOTER; the defaults leave room for a room of 1,000 people behind one address,
each with a tab or two. Counts are per worker: with W workers an address may hold W times as many.
Addresses and cookies are kept as keyed hashes, and only while a socket is open.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie

from django.http import HttpRequest
from django.utils.crypto import salted_hmac

from counters import conf
from counters.domain.addresses import trusted_address

# The salt counters/web/http/voters.py signs the voter cookie with (a test holds the two equal).
VOTER_COOKIE_SALT = "counters.voter"
KEY_SALT = "counters.live.socket_limits"


@dataclass(frozen=True)
class SocketOwner:
    """Who holds a socket, as keyed hashes: its address, and its browser if it sent a voter cookie."""

    address: str
    voter: str | None


def header(scope: dict, name: bytes) -> str:
    """One request header of an ASGI scope, decoded ('' if absent)."""
    for key, raw in scope.get("headers", ()):
        if key == name:
            return raw.decode("latin-1")
    return ""


def owner_of(scope: dict) -> SocketOwner:
    """The socket's address (through our own proxies) and signed voter, hashed."""
    remote = (scope.get("client") or ("", 0))[0] or ""
    address = trusted_address(remote, header(scope, b"x-forwarded-for"), proxies=conf.proxy_count())
    voter = signed_voter(header(scope, b"cookie"))
    return SocketOwner(address=hashed(address), voter=hashed(voter) if voter else None)


def signed_voter(cookie_header: str) -> str | None:
    """The voter id in a valid signed voter cookie, or None."""
    try:
        morsel = SimpleCookie(cookie_header).get(conf.voter_cookie())
    except CookieError:
        return None
    if morsel is None:
        return None
    # Read through Django's own signed-cookie API, so the signature is checked exactly as for a vote.
    request = HttpRequest()
    request.COOKIES[conf.voter_cookie()] = morsel.value
    return request.get_signed_cookie(conf.voter_cookie(), default=None, salt=VOTER_COOKIE_SALT)


def hashed(value: str) -> str:
    """A keyed hash: the count is kept without the address or cookie itself."""
    return salted_hmac(KEY_SALT, value, algorithm="sha256").hexdigest()[:32]


class SocketLimits:
    """Open sockets per address and per voter on this worker (used on the live loop only)."""

    def __init__(self, *, per_address: int, per_voter: int) -> None:
        self.per_address = per_address
        self.per_voter = per_voter
        self._addresses: Counter[str] = Counter()
        self._voters: Counter[str] = Counter()

    @classmethod
    def from_settings(cls, process: object = None) -> SocketLimits:
        """COUNTERS_SOCKETS_PER_ADDRESS and COUNTERS_SOCKETS_PER_VOTER (0: no limit)."""
        return cls(per_address=conf.sockets_per_address(), per_voter=conf.sockets_per_voter())

    def admit(self, owner: SocketOwner) -> bool:
        """Count a new socket of `owner` if both of its limits allow one more; say whether it was."""
        if over(self._addresses[owner.address], self.per_address):
            return False
        if owner.voter is not None and over(self._voters[owner.voter], self.per_voter):
            return False
        self._addresses[owner.address] += 1
        if owner.voter is not None:
            self._voters[owner.voter] += 1
        return True

    def release(self, owner: SocketOwner) -> None:
        """Forget a closed socket that was admitted."""
        forget(self._addresses, owner.address)
        if owner.voter is not None:
            forget(self._voters, owner.voter)

    def open_sockets(self, owner: SocketOwner) -> int:
        """Sockets the owner's address holds open now."""
        return self._addresses[owner.address]


def over(held: int, limit: int) -> bool:
    """Whether one more would pass `limit` (0: no limit)."""
    return limit > 0 and held >= limit


def forget(counts: Counter[str], key: str) -> None:
    """Take one from a count, dropping it at zero so nothing stays behind."""
    counts[key] -= 1
    if counts[key] <= 0:
        del counts[key]
