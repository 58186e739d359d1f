"""Reset a counter to 0 if it is still at the version the operator saw, leaving an audit record."""

import getpass

from django.core.management.base import BaseCommand, CommandError

from counters import services
from counters.exceptions import CounterError, InvalidInput, UnknownCounter, VersionConflict

# Exit codes operators can script against (2 is also argparse's for a bad command line).
EXIT_INVALID = 2
EXIT_STALE = 3
EXIT_UNKNOWN = 4
EXIT_UNAVAILABLE = 5


class Command(BaseCommand):
    """`python manage.py counters_reset NAME --expect-version V [--reason TEXT]`."""

    help = (
        "Reset a counter to 0 only if it is still at --expect-version. Exit codes: 0 reset, "
        f"{EXIT_INVALID} bad input, {EXIT_STALE} stale version (nothing reset), "
        f"{EXIT_UNKNOWN} unknown counter, {EXIT_UNAVAILABLE} store unavailable."
    )

    def add_arguments(self, parser):
        """The counter, the version seen, and why."""
        parser.add_argument("name", help="Counter name, e.g. a page slug or <poll>.<option>.")
        parser.add_argument(
            "--expect-version", type=int, required=True, help="The version you saw (GET /api/counters/NAME)."
        )
        parser.add_argument("--reason", default="", help="Why, kept in the audit record.")
        parser.add_argument("--actor", default="", help="Who, for the audit record (default: cli:<user>).")

    def handle(self, *args, **options):
        """Reset and report the old and new state, or explain the refusal."""
        actor = options["actor"] or f"cli:{getpass.getuser()}"
        try:
            state = services.counter_reset(
                name=options["name"],
                expected_version=options["expect_version"],
                actor=actor,
                reason=options["reason"],
            )
        except VersionConflict as exc:
            raise CommandError(f"Not reset: {exc.detail}", returncode=EXIT_STALE) from exc
        except UnknownCounter as exc:
            raise CommandError(exc.detail, returncode=EXIT_UNKNOWN) from exc
        except InvalidInput as exc:
            raise CommandError(exc.detail, returncode=EXIT_INVALID) from exc
        except CounterError as exc:
            raise CommandError(exc.detail, returncode=EXIT_UNAVAILABLE) from exc
        self.stdout.write(
            self.style.SUCCESS(
                f"{state.name} was reset to 0 from version {options['expect_version']}; "
                f"it is now at version {state.version}."
            )
        )
