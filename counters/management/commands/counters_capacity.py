"""Print the workers, Redis traffic, DynamoDB units and monthly price a traffic needs (docs/capacity.md)."""

from django.core.management.base import BaseCommand

from counters.domain import capacity


class Command(BaseCommand):
    """`python manage.py counters_capacity --views-per-day N [--votes-per-second V] [--sockets S] ...`."""

    help = "Estimate workers, Redis messages, DynamoDB request units and dollars for a traffic."

    def add_arguments(self, parser):
        """The traffic, at its peak where it says so."""
        parser.add_argument("--views-per-day", type=int, default=0)
        parser.add_argument("--peak-factor", type=float, default=3.0, help="Peak ÷ the day's average.")
        parser.add_argument("--votes-per-second", type=float, default=0.0, help="At the peak.")
        parser.add_argument("--sockets", type=int, default=0, help="Live pages open at once.")
        parser.add_argument("--outside-writes-per-second", type=float, default=0.0)
        parser.add_argument("--pages", type=int, default=100)
        parser.add_argument("--hottest-page-share", type=float, default=0.1, help="Of all views, 0 to 1.")

    def handle(self, *args, **options):
        """Run the model and print its answer."""
        names = (
            "views_per_day",
            "peak_factor",
            "votes_per_second",
            "sockets",
            "outside_writes_per_second",
            "pages",
            "hottest_page_share",
        )
        result = capacity.estimate(capacity.Traffic(**{name: options[name] for name in names}))
        limit = capacity.PARTITION_WRITE_UNITS
        self.stdout.write(f"counting workers: {result.counting_workers}")
        self.stdout.write(f"socket workers: {result.socket_workers}")
        self.stdout.write(f"Redis messages/s: {result.redis_messages_per_second:,.0f}")
        self.stdout.write(f"DynamoDB write units/month: {result.write_units_per_month:,.0f}")
        self.stdout.write(f"DynamoDB read units/month: {result.read_units_per_month:,.0f}")
        self.stdout.write(f"stored: {result.stored_gb:.2f} GB")
        self.stdout.write(f"price: ${result.dollars_per_month:,.2f}/month (on-demand, {capacity.PRICE_DATE})")
        self.stdout.write(
            f"hottest page: {result.hottest_page_writes_per_second:,.0f} writes/s "
            f"of {limit:,} a partition takes; shards: {result.hottest_page_shards}"
        )
        votes = capacity.vote_option_writes_per_second(options["votes_per_second"])
        self.stdout.write(f"one poll option taking every vote: {votes:,.0f} write units/s of {limit:,}")
