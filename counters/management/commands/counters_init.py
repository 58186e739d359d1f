"""Create the counters table if missing, move starts into totals, and unless --no-demo seed the demo."""

from django.core.management.base import BaseCommand, CommandError

from counters import conf
from counters.exceptions import CounterError
from counters.services.setup import store_prepare


class Command(BaseCommand):
    """`python manage.py counters_init [--no-demo]`."""

    help = (
        "Create the DynamoDB table if it is missing, move counters' starts into their stored totals "
        "(once), and seed the demo pages and polls."
    )

    def add_arguments(self, parser):
        """Let operators skip the demo content."""
        parser.add_argument("--no-demo", action="store_true", help="Create the table only; seed nothing.")

    def handle(self, *args, **options):
        """Create, seed and report."""
        try:
            prepared = store_prepare(demo=not options["no_demo"])
        except CounterError as exc:
            raise CommandError(exc.detail) from exc
        if prepared.table_created:
            self.stdout.write(f"Created the DynamoDB table {conf.table_name()!r}.")
        if prepared.starts_moved:
            self.stdout.write(f"Moved the start of {prepared.starts_moved} counter(s) into the stored total.")
        detail = " (no demo content)" if options["no_demo"] else " with the demo pages and polls"
        self.stdout.write(self.style.SUCCESS(f"Table {conf.table_name()!r} ready{detail}."))
        if options["no_demo"]:
            self.stdout.write("Register your pages: `python manage.py counters_register <name> ...`.")
