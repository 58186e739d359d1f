"""Create the counters table if missing and register the demo pages and polls."""

from django.core.management.base import BaseCommand, CommandError

from counters import conf
from counters.exceptions import CounterError
from counters.seed import seed_demo
from counters.store import get_store


class Command(BaseCommand):
    """`python manage.py counters_init [--no-demo]`."""

    help = "Create the DynamoDB table if it is missing and seed the demo pages and polls."

    def add_arguments(self, parser):
        """Let operators skip the demo content."""
        parser.add_argument("--no-demo", action="store_true", help="Create the table only.")

    def handle(self, *args, **options):
        """Create, seed and report."""
        try:
            store = get_store()  # a new table gets the demo content here already
            if not options["no_demo"]:
                seed_demo(store)
        except CounterError as exc:
            raise CommandError(exc.detail) from exc
        demo = "" if options["no_demo"] else " with the demo pages and polls"
        self.stdout.write(self.style.SUCCESS(f"Table {conf.table_name()!r} ready{demo}."))
