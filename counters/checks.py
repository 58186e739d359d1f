"""System checks: an unreadable setting of the app stops `runserver`, `migrate` and daphne at start."""

from __future__ import annotations

from django.core.checks import Error, register

from counters import conf


@register()
def counters_settings_check(app_configs=None, **kwargs) -> list[Error]:
    """Refuse to start on an unreadable counters setting instead of failing on the first request."""
    return [Error(problem, id="counters.E001") for problem in conf.check_settings()]
