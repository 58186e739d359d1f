"""Settings for the test suite: the store endpoint is provided by the test fixtures."""

from counters_site.settings import *  # noqa: F403

DEBUG = False
SECRET_KEY = "test-only-secret-key-not-for-production-0123456789abcdef"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
COUNTERS_VOTE_RATE = "0"
# In-process sockets hear heartbeats only where a test asks for them (tests/unit/live/test_heartbeat.py):
# tests that wait for silence between updates must not meet one. Site processes keep the default.
COUNTERS_HEARTBEAT_SECONDS = 3600
# The web workers read the table's stream by default; in-process tests that want a reader build their
# own (tests/unit/streams/), so none starts behind a test's back.
COUNTERS_STREAM_READER = "off"
