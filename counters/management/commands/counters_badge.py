"""Choose whether fetching a counter's badge counts a view, or say whether it does."""

from django.core.management.base import BaseCommand, CommandError

from counters import selectors, services
from counters.exceptions import CounterError


class Command(BaseCommand):
    """`python manage.py counters_badge <name> [--count | --no-count]`."""

    help = "Say whether each fetch of a counter's badge counts a view; --count or --no-count changes it."

    def add_arguments(self, parser):
        """The counter, and the choice (none: only show it)."""
        parser.add_argument("name", help="Counter name, e.g. a page slug.")
        choice = parser.add_mutually_exclusive_group()
        choice.add_argument("--count", dest="enabled", action="store_true", default=None, help="Count views.")
        choice.add_argument(
            "--no-count", dest="enabled", action="store_false", help="Count nothing (default)."
        )

    def handle(self, *args, **options):
        """Apply the choice if one is given, then report it."""
        name, enabled = options["name"], options["enabled"]
        try:
            if enabled is None:
                state = selectors.counter_get(name=name)
            else:
                state = services.badge_counting_set(name=name, enabled=enabled)
        except CounterError as exc:
            raise CommandError(exc.detail) from exc
        if state.badge_counts:
            self.stdout.write(
                self.style.SUCCESS(f"Each fetch of /badge/{name}.svg counts one view of {name}.")
            )
        else:
            self.stdout.write(f"Fetching /badge/{name}.svg counts nothing.")
