"""Permission holders for the admin: counters and polls live in DynamoDB, not in these tables.

Both models are unmanaged and never queried; they exist so that `counters.reset_counter` and the
poll permissions are real Django permissions, grantable to staff users and groups.
"""

from django.db import models


class Counter(models.Model):
    """Stands for the counters in DynamoDB: who may see, add (register) and reset them, and their settings."""

    class Meta:
        managed = False
        default_permissions = ("view", "add")
        permissions = [
            ("reset_counter", "Can reset counters"),
            ("configure_counter", "Can choose whether a counter's badge counts views"),
        ]
        verbose_name = "counter"
        verbose_name_plural = "counters"

    def __str__(self) -> str:
        return "counter"


class Poll(models.Model):
    """Stands for the polls in DynamoDB: who may see, create and change (options, closing) them."""

    class Meta:
        managed = False
        default_permissions = ("view", "add", "change")
        verbose_name = "poll"
        verbose_name_plural = "polls"

    def __str__(self) -> str:
        return "poll"
