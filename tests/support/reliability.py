"""Helpers for fault tests: browser-like clients with a CSRF token, and beacons that record outcomes."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import requests
from django.test import Client

TIMEOUT = 30


def csrf_session(base_url: str, *, page: str = "/pages/welcome/") -> requests.Session:
    """A session holding the CSRF cookie a counted page sets, sending it back as pages' scripts do."""
    session = requests.Session()
    session.get(f"{base_url}{page}", timeout=TIMEOUT)
    session.headers["X-CSRFToken"] = session.cookies["csrftoken"]
    return session


def csrf_client(*, page: str = "/pages/welcome/") -> Client:
    """An in-process client with CSRF checks on, holding the token a counted page sets, as scripts do."""
    client = Client(enforce_csrf_checks=True)
    client.get(page)
    client.defaults["HTTP_X_CSRFTOKEN"] = client.cookies["csrftoken"].value
    return client


def beacon(session: requests.Session, base_url: str, slug: str) -> requests.Response:
    """POST one view beacon for `slug`."""
    return session.post(f"{base_url}/api/views/{slug}", timeout=TIMEOUT)


@dataclass
class Outcomes:
    """What the site answered to writes: acknowledged, refused (nothing written), unknown."""

    acknowledged: int = 0
    refused: int = 0
    unknown: int = 0
    other: Counter = field(default_factory=Counter)

    def add(self, response) -> None:
        """Classify one answer to a write."""
        if response.status_code == 200:
            self.acknowledged += 1
            return
        code = error_code(response)
        if response.status_code == 503 and code == "store_unavailable":
            self.refused += 1
        elif response.status_code == 503 and code == "outcome_unknown":
            self.unknown += 1
        else:
            self.other[(response.status_code, code)] += 1


def error_code(response) -> str:
    """The `error` of a JSON error answer, or a marker when the body is not the contract's JSON."""
    try:
        return response.json().get("error", "<no error field>")
    except ValueError:
        return "<not json>"
