"""Read the table's stream in this process (whenever it holds the lease) until stopped."""

import signal
import threading

from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.core.management.base import BaseCommand

from counters.streams.worker import stream_worker


class Command(BaseCommand):
    """`python manage.py counters_stream`: one of these (or a web worker) per table reads the stream."""

    help = "Push changes any writer makes to the counters table live, from its DynamoDB stream."

    def handle(self, *args, **options):
        """Run the reader until SIGTERM or Ctrl-C, then give the lease up."""
        worker = stream_worker()
        if worker.reader is None:
            self.stderr.write("The counter store has no stream to read (a DynamoDB store is needed).")
            return
        if isinstance(get_channel_layer(), InMemoryChannelLayer):
            self.stderr.write(
                "The channel layer is in-memory: pushes from this process reach no web worker. "
                "Set REDIS_URL (or let the web workers read it: COUNTERS_STREAM_READER=worker, the default)."
            )
        stopping = threading.Event()
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, lambda *_: stopping.set())
        self.stdout.write(f"Reading the stream as {worker.reader.lease.owner}.")
        self.stdout.flush()
        worker.ensure_started()
        stopping.wait()
        worker.stop()
        self.stdout.write("Stopped; the lease is given up.")
