"""Production settings: the base settings, plus refusals of unsafe values and HTTPS hardening.

Use with DJANGO_SETTINGS_MODULE=counters_site.settings_production. Required: DJANGO_SECRET_KEY (a
real one: at least 50 characters, not a placeholder), DJANGO_ALLOWED_HOSTS; DEBUG must be off.
HTTPS switches are on by default and configurable for a TLS-terminating proxy in front.
"""

import os

from django.core.exceptions import ImproperlyConfigured

from counters_site.settings import *  # noqa: F403
from counters_site.settings import env_bool, env_list

MIN_SECRET_KEY_LENGTH = 50
MIN_SECRET_KEY_CHARACTERS = 5
# Values seen in examples and this repository's tests: never acceptable in production.
PLACEHOLDER_MARKERS = ("insecure", "change-me", "changeme", "secret-key", "test-", "example", "dummy")


def production_secret_key(raw: str | None) -> str:
    """Return DJANGO_SECRET_KEY if it is a real key, else raise ImproperlyConfigured."""
    key = (raw or "").strip()
    if not key:
        raise ImproperlyConfigured("Set DJANGO_SECRET_KEY: production never runs on a generated key.")
    lowered = key.lower()
    if (
        len(key) < MIN_SECRET_KEY_LENGTH
        or len(set(key)) < MIN_SECRET_KEY_CHARACTERS
        or any(marker in lowered for marker in PLACEHOLDER_MARKERS)
    ):
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY looks like a default or placeholder; generate one with "
            "`python -c 'from django.core.management.utils import get_random_secret_key as k; print(k())'`."
        )
    return key


DEBUG = env_bool("DJANGO_DEBUG", False)
if DEBUG:
    raise ImproperlyConfigured("DJANGO_DEBUG must be off with the production settings.")
if os.environ.get("COUNTERS_TEST_CLOCK_FILE", "").strip():
    raise ImproperlyConfigured("COUNTERS_TEST_CLOCK_FILE moves the clock for tests: never in production.")
COUNTERS_TEST_CLOCK_FILE = ""
SECRET_KEY = production_secret_key(os.environ.get("DJANGO_SECRET_KEY"))
if not os.environ.get("DJANGO_ALLOWED_HOSTS", "").strip():
    raise ImproperlyConfigured("Set DJANGO_ALLOWED_HOSTS to the host names this site answers to.")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "")
WHITENOISE_AUTOREFRESH = False
# Production talks to DynamoDB at DYNAMODB_ENDPOINT_URL (e.g. https://dynamodb.<region>.amazonaws.com);
# starting the Java emulator from node_modules must be asked for explicitly, and without either the
# site refuses to start rather than failing on its first request.
COUNTERS_EMBEDDED_DYNAMODB = env_bool("COUNTERS_EMBEDDED_DYNAMODB", False)
if not os.environ.get("DYNAMODB_ENDPOINT_URL", "").strip() and not COUNTERS_EMBEDDED_DYNAMODB:
    raise ImproperlyConfigured(
        "Set DYNAMODB_ENDPOINT_URL (e.g. https://dynamodb.<region>.amazonaws.com); production never starts "
        "the embedded DynamoDB Local unless COUNTERS_EMBEDDED_DYNAMODB=true."
    )

# HTTPS: redirect, secure cookies, HSTS. Behind a TLS-terminating proxy, set
# DJANGO_SECURE_PROXY_SSL_HEADER=X-Forwarded-Proto so Django knows the original scheme.
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
# Load balancers probe each worker over plain HTTP and take a redirect for "unhealthy"; the probes carry
# nothing private. /metrics is not exempt: its bearer token must not travel in clear.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SESSION_COOKIE_SECURE = env_bool("DJANGO_SESSION_COOKIE_SECURE", True)
CSRF_COOKIE_SECURE = env_bool("DJANGO_CSRF_COOKIE_SECURE", True)
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_SECURE_HSTS_SECONDS", str(365 * 24 * 3600)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", False)
if proxy_header := os.environ.get("DJANGO_SECURE_PROXY_SSL_HEADER", "").strip():
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + proxy_header.upper().replace("-", "_"), "https")
# The CSRF cookie stays readable by scripts (they send it as X-CSRFToken); the session's is not.
SESSION_COOKIE_HTTPONLY = True
# Joining the browsers' HSTS preload list is a decision for the domain's owner, made by setting
# DJANGO_SECURE_HSTS_PRELOAD=true; until then the deploy check's reminder about it is silenced.
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
