"""Watch a number in another DynamoDB table as a counter, or list the watched ones."""

import json

from django.core.management.base import BaseCommand, CommandError

from counters.exceptions import CounterError
from counters.services.watched import counter_watch
from counters.store import get_store
from counters.store.capabilities import WATCHED


class Command(BaseCommand):
    """`python manage.py counters_watch add <name> --table T --key JSON --attribute A` | `list`."""

    help = "Show a number that lives in another DynamoDB table as a live counter (that table is only read)."

    def add_arguments(self, parser):
        """`add` and `list`."""
        actions = parser.add_subparsers(dest="action", required=True)
        add = actions.add_parser("add", help="Watch an item's numeric attribute as counter <name>.")
        add.add_argument("name")
        add.add_argument("--table", required=True, help="The other table.")
        add.add_argument("--key", required=True, help='The item\'s key as JSON: {"pk": {"S": "user#42"}}.')
        add.add_argument("--attribute", required=True, help="The numeric attribute to show.")
        add.add_argument("--kind", default="views", choices=("views", "votes"))
        add.add_argument("--title", default="")
        actions.add_parser("list", help="Every watched counter and where it lives.")

    def handle(self, *args, **options):
        """Register or list."""
        if options["action"] == "list":
            store = get_store()
            for watch in store.watched_tables().watches() if WATCHED in store.capabilities else []:
                self.stdout.write(f"{watch.name}\t{watch.table}\t{watch.key_text}\t{watch.attribute}")
            return
        try:
            key = json.loads(options["key"])
        except ValueError as exc:
            raise CommandError(f"--key is not JSON: {exc}") from exc
        try:
            state = counter_watch(
                name=options["name"],
                table=options["table"],
                key=key if isinstance(key, dict) else {},
                attribute=options["attribute"],
                kind=options["kind"],
                title=options["title"],
            )
        except CounterError as exc:
            raise CommandError(exc.detail) from exc
        self.stdout.write(self.style.SUCCESS(f"Watching {state.name}: {state.value} now."))
