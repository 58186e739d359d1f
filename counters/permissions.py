"""Who may do what to polls: one rule each, used by the admin, the API and present mode alike."""

from __future__ import annotations

from typing import Any

POLL_CHANGE = "counters.change_poll"


def may_change_polls(user: Any) -> bool:
    """Whether `user` may change polls: active staff holding `counters.change_poll`, or a superuser."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_active and user.is_staff and user.has_perm(POLL_CHANGE))
