"""App configuration for the counters app."""

from django.apps import AppConfig


class CountersConfig(AppConfig):
    """Live counters: DynamoDB-backed counters pushed over websockets."""

    name = "counters"
    verbose_name = "Live counters"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Connect signal handlers that clear cached clients when settings change; register checks."""
        from counters import checks, signals  # noqa: F401
