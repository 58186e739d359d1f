"""The version an admin page showed, signed into the form so a reset can only expect what was shown."""

from __future__ import annotations

from django.core import signing

SALT = "counters.admin.shown-version"


def sign_shown(name: str, version: int) -> str:
    """A token naming a counter and the version the page showed of it."""
    return signing.Signer(salt=SALT).sign(f"{name}:{version}")


def read_shown(token: str) -> tuple[str, int]:
    """The counter and version in a token; BadSignature if it was not made by `sign_shown`."""
    name, _, version = signing.Signer(salt=SALT).unsign(token).rpartition(":")
    return name, int(version)
