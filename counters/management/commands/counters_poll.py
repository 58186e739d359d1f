"""Create, extend, close, reopen and list polls from the command line."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from counters import selectors, services
from counters.exceptions import CounterError


def parse_option(raw: str) -> tuple[str, str]:
    """`id=Label` (or a bare id, used as its own label) as (id, label)."""
    option_id, _, label = raw.partition("=")
    return option_id.strip(), (label or option_id).strip()


class Command(BaseCommand):
    """`python manage.py counters_poll create|add-option|close|reopen|list ...`."""

    help = "Manage polls: create one, add an option, close or reopen it, or list them with their totals."

    def add_arguments(self, parser):
        """One subcommand per action."""
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create", help="Register a new poll.")
        create.add_argument("poll", help="Poll id: lowercase letters, digits, '-' or '_'.")
        create.add_argument("--question", required=True)
        create.add_argument(
            "--option", action="append", required=True, metavar="ID=LABEL", help="Repeat for each option."
        )
        create.add_argument("--closed", action="store_true", help="Create it closed.")
        add = actions.add_parser("add-option", help="Add an option to a poll.")
        add.add_argument("poll")
        add.add_argument("option", metavar="ID=LABEL")
        for name in ("close", "reopen"):
            actions.add_parser(name, help=f"{name.capitalize()} a poll.").add_argument("poll")
        actions.add_parser("list", help="Every poll with its options and totals.")

    def handle(self, *args, **options):
        """Run the chosen action through the services, errors as CommandError."""
        action = options["action"]
        try:
            if action == "list":
                self.list_polls()
                return
            if action == "create":
                poll = services.poll_create(
                    poll_id=options["poll"],
                    question=options["question"],
                    options=[parse_option(raw) for raw in options["option"]],
                    closed=options["closed"],
                )
            elif action == "add-option":
                option_id, label = parse_option(options["option"])
                poll = services.poll_add_option(poll_id=options["poll"], option_id=option_id, label=label)
            elif action == "close":
                poll = services.poll_set_closed(poll_id=options["poll"], closed=True)
            else:
                poll = services.poll_set_closed(poll_id=options["poll"], closed=False)
        except CounterError as exc:
            raise CommandError(exc.detail) from exc
        state = "closed" if poll.closed else "open"
        ids = ", ".join(option.id for option in poll.options)
        self.stdout.write(self.style.SUCCESS(f"{poll.id} ({state}): {poll.question} [{ids}]"))

    def list_polls(self) -> None:
        """One line per poll, one per option with its votes."""
        for poll in selectors.poll_list():
            self.stdout.write(f"{poll.id} ({'closed' if poll.closed else 'open'}): {poll.question}")
            for option in poll.options:
                self.stdout.write(f"  {option.id:<16} {option.votes:>8}  {option.label}")
