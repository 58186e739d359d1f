"""The demo site's settings with extra plain views (tests/support/site_pages_urls.py) for site processes."""

from counters_site.settings import *  # noqa: F403

ROOT_URLCONF = "tests.support.site_pages_urls"
