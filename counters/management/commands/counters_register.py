"""Register page counters (or vote counters) from the command line; running it again changes nothing."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from counters import services
from counters.domain.names import KINDS
from counters.exceptions import CounterError


class Command(BaseCommand):
    """`python manage.py counters_register NAME [NAME ...] [--kind views] [--title T] [--description D]`."""

    help = (
        "Register counters by name (a page's slug for views). A name registered already is left as it is, "
        "so the command may run on every deploy."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Names, and what describes them."""
        parser.add_argument("names", nargs="+", metavar="NAME", help="Lowercase letters, digits, '-' or '_'.")
        parser.add_argument("--kind", choices=KINDS, default="views", help="Default: views.")
        parser.add_argument("--title", default="", help="Shown on the dashboard (default: from the name).")
        parser.add_argument("--description", default="")
        parser.add_argument(
            "--start", type=int, default=0, help="Views counted elsewhere before (default 0)."
        )

    def handle(self, *args: Any, names: list[str], **options: Any) -> None:
        """Register each name through the services; say what each one is now."""
        if len(names) > 1 and options["title"]:
            raise CommandError(
                "--title names one counter: register counters with their own titles one by one."
            )
        try:
            definitions = [
                services.counter_definition(
                    name=name,
                    kind=options["kind"],
                    title=options["title"] or name.replace("-", " ").replace("_", " ").capitalize(),
                    description=options["description"],
                    start=options["start"],
                )
                for name in names
            ]
            for definition in definitions:
                self.report(services.counter_register(definition))
        except CounterError as exc:
            raise CommandError(exc.detail) from exc

    def report(self, registered: services.Registered) -> None:
        """One line per counter: registered now, or already (as it was)."""
        state = registered.state
        if registered.created:
            self.stdout.write(
                self.style.SUCCESS(f"Registered {state.kind} counter {state.name!r} ({state.title}).")
            )
        else:
            self.stdout.write(
                f"{state.name!r} was registered already ({state.kind}, {state.title or 'no title'}, "
                f"value {state.value}); left as it is."
            )
