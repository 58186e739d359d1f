"""Idempotency-Key handling: key validation and the fingerprint of the request a key belongs to."""

from __future__ import annotations

import hashlib
import json
import re
import time

from counters import conf
from counters.domain.values import IdempotencyClaim
from counters.exceptions import InvalidInput, TooLarge

MAX_KEY_LENGTH = 255
KEY_PATTERN = re.compile(r"^[\x21-\x7e]{1,255}$")  # visible ASCII, as in the IETF draft's examples


def validate_key(key: str | None) -> str | None:
    """Return a usable Idempotency-Key (or None when absent); refuse long or odd ones."""
    if key is None or key == "":
        return None
    if len(key) > MAX_KEY_LENGTH:
        raise TooLarge(f"An Idempotency-Key is at most {MAX_KEY_LENGTH} characters.")
    if not KEY_PATTERN.fullmatch(key):
        raise InvalidInput("An Idempotency-Key is visible ASCII characters without spaces.")
    return key


def fingerprint_of(**request: object) -> str:
    """A stable hash of what a request asks for; the same key with another fingerprint is a 409."""
    return hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()


def claim(
    key: str, fingerprint: str, *, new_voter: bool = False, now: float | None = None
) -> IdempotencyClaim:
    """The record a write with this key leaves behind, alive for COUNTERS_IDEMPOTENCY_TTL seconds."""
    expires_at = int((time.time() if now is None else now) + conf.idempotency_ttl())
    return IdempotencyClaim(key=key, fingerprint=fingerprint, expires_at=expires_at, new_voter=new_voter)
