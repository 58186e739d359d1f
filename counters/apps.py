"""App configuration for the counters app."""

from django.apps import AppConfig


class CountersConfig(AppConfig):
    """Live counters: DynamoDB-backed counters pushed over websockets."""

    name = "counters"
    verbose_name = "Live counters"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Connect the runtime's settings receiver; register checks."""
        from counters import checks, runtime  # noqa: F401
