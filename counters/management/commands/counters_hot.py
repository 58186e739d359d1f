"""Make a counter hot: spread its writes over N shards, keeping its count."""

from django.core.management.base import BaseCommand, CommandError

from counters import services
from counters.exceptions import CounterError


class Command(BaseCommand):
    """`python manage.py counters_hot <name> --shards N`."""

    help = "Convert a counter to N shards (or add shards to a hot one); its count and version are kept."

    def add_arguments(self, parser):
        """The counter and how many shards it gets."""
        parser.add_argument("name", help="Counter name, e.g. a page slug.")
        parser.add_argument(
            "--shards", type=int, required=True, help="Shards, 1 to 64; never fewer than now."
        )

    def handle(self, *args, **options):
        """Convert and report the kept total."""
        try:
            state = services.counter_make_hot(name=options["name"], shards=options["shards"])
        except CounterError as exc:
            raise CommandError(exc.detail) from exc
        self.stdout.write(
            self.style.SUCCESS(
                f"{state.name} now has {options['shards']} shards; "
                f"value {state.value}, version {state.version}."
            )
        )
