"""Users for admin tests: staff or not, holding some of the counters app's permissions."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission


def make_user(username: str, *codenames: str, staff: bool = True):
    """A user with the given `counters.*` permission codenames."""
    user = get_user_model().objects.create_user(username=username, password="pw-123456", is_staff=staff)
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="counters", codename__in=codenames)
    )
    return user
