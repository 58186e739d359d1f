"""Show, start or stop the embedded DynamoDB Local of this project's data dir."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from counters import conf
from counters.embedded import dynamodb_local as local


class Command(BaseCommand):
    """`manage.py counters_local status|start|stop`."""

    help = "Show, start or stop the embedded DynamoDB Local kept under COUNTERS_DATA_DIR."

    def add_arguments(self, parser: CommandParser) -> None:
        """Take the action to perform."""
        parser.add_argument("action", choices=["status", "start", "stop"])

    def handle(self, *args: Any, action: str, **options: Any) -> None:
        """Run the action against settings.COUNTERS_DATA_DIR."""
        data_dir = conf.data_dir()
        if conf.endpoint_url():
            self.stderr.write(
                f"Note: DYNAMODB_ENDPOINT_URL is set, so the app uses {conf.endpoint_url()}, "
                "not this embedded instance."
            )
        try:
            if action == "start":
                running = local.ensure_running(data_dir, base_dir=conf.base_dir())
                self.stdout.write(f"DynamoDB Local running at {running.endpoint_url} (pid {running.pid}).")
            elif action == "status":
                running = local.status(data_dir)
                if running is None:
                    self.stdout.write(f"DynamoDB Local is not running for {data_dir}.")
                else:
                    self.stdout.write(
                        f"DynamoDB Local running at {running.endpoint_url} (pid {running.pid})."
                    )
            elif local.stop(data_dir):
                self.stdout.write("DynamoDB Local stopped.")
            else:
                self.stdout.write("DynamoDB Local was not running.")
        except local.DynamoLocalUnavailable as exc:
            raise CommandError(str(exc)) from exc
