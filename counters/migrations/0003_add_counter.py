from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("counters", "0002_configure_counter"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="counter",
            options={
                "default_permissions": ("view", "add"),
                "managed": False,
                "permissions": [
                    ("reset_counter", "Can reset counters"),
                    ("configure_counter", "Can choose whether a counter's badge counts views"),
                ],
                "verbose_name": "counter",
                "verbose_name_plural": "counters",
            },
        ),
    ]
