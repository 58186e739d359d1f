"""Site settings for benchmark runs: the real site plus one uncounted twin page."""

from counters_site.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
