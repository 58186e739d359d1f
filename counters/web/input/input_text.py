"""Text taken from a request: strict UTF-8, no NUL, no lone surrogates."""

from __future__ import annotations

from counters.exceptions import InvalidInput


def utf8_text(raw: bytes, *, what: str) -> str:
    """`raw` decoded as strict UTF-8 and checked by `checked_text`; InvalidInput otherwise."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"The {what} is not valid UTF-8.") from exc
    return checked_text(text, what=what)


def checked_text(text: str, *, what: str) -> str:
    """`text` unless it holds a NUL or a lone surrogate (neither can be stored or sent on); InvalidInput."""
    if "\x00" in text:
        raise InvalidInput(f"The {what} holds a NUL character.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(f"The {what} holds a lone surrogate, which is not text.") from exc
    return text
