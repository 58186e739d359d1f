"""Helpers for vote tests: voters over real HTTP, and the invariants a poll must always keep."""

from __future__ import annotations

import uuid

import requests
from requests.adapters import HTTPAdapter

from counters.domain.names import option_counter_name


class SourceAddressAdapter(HTTPAdapter):
    """Connections from one local address (any of 127/8 on Linux loopback), as another machine's."""

    def __init__(self, address: str) -> None:
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs) -> None:
        super().init_poolmanager(*args, **kwargs, source_address=(self.address, 0))


class HttpVoter:
    """One browser-like voter of a real site: its own cookies (voter id, CSRF token), its own address."""

    def __init__(self, base_url: str, *, source_address: str | None = None) -> None:
        self.base_url = base_url
        self.session = requests.Session()
        if source_address is not None:
            self.session.mount("http://", SourceAddressAdapter(source_address))

    def visit(self) -> HttpVoter:
        """Open the dashboard once, as a browser would: it sets the voter and CSRF cookies."""
        self.session.get(f"{self.base_url}/", timeout=30).raise_for_status()
        return self

    @property
    def csrf_token(self) -> str:
        return self.session.cookies["csrftoken"]

    def vote(
        self,
        poll: str,
        option: str | None,
        *,
        key: str | None = None,
        headers: dict[str, str] | None = None,
        picked: bool | None = None,
    ) -> requests.Response:
        """POST a vote (or DELETE when `option` is None), with a fresh Idempotency-Key unless given;
        `picked` adds or removes one pick of a multiple-choice poll."""
        headers = {
            "X-CSRFToken": self.csrf_token,
            "Idempotency-Key": key or uuid.uuid4().hex,
            **(headers or {}),
        }
        url = f"{self.base_url}/api/polls/{poll}/vote"
        if option is None:
            return self.session.delete(url, headers=headers, timeout=60)
        body = {"option": option} if picked is None else {"option": option, "picked": picked}
        return self.session.post(url, json=body, headers=headers, timeout=60)

    def choice(self, poll: str) -> str | None:
        """What the site says this voter currently holds in a poll."""
        response = self.session.get(f"{self.base_url}/api/polls/{poll}/vote", timeout=30)
        response.raise_for_status()
        return response.json()["choice"]


def poll_tally(store, poll_id: str) -> dict[str, int]:
    """Each option's total as the store holds it."""
    poll = store.get_poll(poll_id)
    names = {option_counter_name(poll_id, option.id): option.id for option in poll.options}
    return {names[state.name]: state.value for state in store.get_many(names)}


def assert_poll_consistent(store, poll_id: str) -> dict[str, str]:
    """Totals equal the voter records exactly, none below zero; return the voters' choices."""
    tally = poll_tally(store, poll_id)
    voters = store.poll_voters(poll_id)
    assert all(value >= 0 for value in tally.values()), tally
    implied = {option: 0 for option in tally}
    for option in voters.values():
        implied[option] += 1
    assert tally == implied, (tally, implied)
    assert sum(tally.values()) == len(voters)
    return voters


def voter_id(voter: HttpVoter) -> str:
    """The hex part of a voter's signed cookie value `anon:<hex>:<timestamp>:<signature>`."""
    return voter.session.cookies["counters_voter"].split(":")[1]
