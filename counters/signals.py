"""The app's signals, and the handler that drops cached store clients when a relevant setting changes."""

from django.core.signals import setting_changed
from django.dispatch import Signal, receiver

# Sent when the embedded DynamoDB Local this process used is found dead (counters/embedded/supervisor.py);
# live dashboards close so that browsers show the counts as unavailable until the store is back.
store_lost = Signal()

STORE_SETTINGS = frozenset(
    {
        "DYNAMODB_ENDPOINT_URL",
        "AWS_REGION",
        "COUNTERS_TABLE",
        "COUNTERS_DATA_DIR",
        "COUNTERS_STORE_BACKEND",
        "COUNTERS_EMBEDDED_DYNAMODB",
        "COUNTERS_DYNAMODB_CONNECT_TIMEOUT",
        "COUNTERS_DYNAMODB_READ_TIMEOUT",
        "COUNTERS_DYNAMODB_MAX_POOL",
    }
)


@receiver(setting_changed)
def forget_store_on_setting_change(*, setting: str, **kwargs: object) -> None:
    """Rebuild the store lazily after override_settings touches its configuration."""
    if setting in STORE_SETTINGS:
        from counters.store import reset_store

        reset_store()
