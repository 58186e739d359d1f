"""Settings for Live counters, read from the environment."""

import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.management.utils import get_random_secret_key

from counters.conf import environment_settings

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    """Read a boolean environment variable (1/true/yes/on)."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    """Read a comma-separated environment variable."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", True)
# A per-process random key keeps a fresh clone working; production must set its own.
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or get_random_secret_key()
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "counters",
]

MIDDLEWARE = [
    # First, so every answer (the other middleware's refusals too) is counted in /metrics.
    "counters.web.http.request_metrics.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "counters.web.http.content_policy.WebsocketHostCSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "counters.web.http.middleware.MalformedBodyMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "counters.web.http.voters.VoterMiddleware",
    # Counts every HTML page once COUNTERS_SITE_PAGES is on (docs/whole-site.md); inert otherwise.
    "counters.web.http.site_middleware.SitePagesMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "counters_site.urls"
ASGI_APPLICATION = "counters_site.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # The site's own templates (its base layout) are found before the apps', so they override them.
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

COUNTERS_DATA_DIR = Path(os.environ.get("COUNTERS_DATA_DIR", BASE_DIR / "var"))
# SQLite cannot create its folder, and a fresh clone has no var/ yet.
COUNTERS_DATA_DIR.mkdir(parents=True, exist_ok=True)

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{COUNTERS_DATA_DIR / 'db.sqlite3'}",
        conn_max_age=60,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
# The site's time zone decides "today" and the days of the charts and of unique visitors (IANA name).
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# The site's favicon; the counters app's scripts and styles (its whole look) come from counters/static/.
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = COUNTERS_DATA_DIR / "static"
# Serve static files from the app dirs directly under daphne too, no collectstatic step needed.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# The counters app's settings (names, defaults, types: counters/conf.py), from the environment when set.
# The demo site runs DynamoDB Local itself when no endpoint is set (the app's default is off).
COUNTERS_EMBEDDED_DYNAMODB = True
globals().update(environment_settings(os.environ))
# A test that starts this site moves its clock by writing seconds into this file (FileMovedClock in
# counters/domain/clock.py), instead of waiting for a poll to close; the production settings refuse it.
COUNTERS_TEST_CLOCK_FILE = os.environ.get("COUNTERS_TEST_CLOCK_FILE", "")

# Push: one process in memory by default; Redis when REDIS_URL is set.
REDIS_URL = os.environ.get("REDIS_URL", "")
# Workers of one site share a prefix; another site (or test) on the same Redis picks its own.
REDIS_PREFIX = os.environ.get("COUNTERS_REDIS_PREFIX", "asgi")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                # redis-py 8 reads with a 5 s socket timeout by default, exactly the 5 s a channels_redis
                # receive blocks on the server: an idle relay would time out and drop its sockets.
                "hosts": [{"address": REDIS_URL, "socket_timeout": 10}],
                "prefix": REDIS_PREFIX,
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# The vote rate limit counts in this cache: shared through Redis by every worker when REDIS_URL is set.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # Sites sharing a Redis keep their vote windows apart too.
            "KEY_PREFIX": REDIS_PREFIX,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# One handler, on the root logger, for the app's, Django's and the server's lines alike (daphne's own
# root handler is replaced, so no line is printed twice). Its filter lets a client's refusals through at
# most once per kind a minute, with a count, and drops the traceback of a client's fault such as a bad
# Host header (counters/log_limits.py); uvicorn's own websocket lines get the same filter.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"refusals": {"()": "counters.log_limits.RefusalLimit"}},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["refusals"], "formatter": "plain"},
    },
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "counters": {"level": os.environ.get("COUNTERS_LOG_LEVEL", "INFO")},
        "uvicorn.error": {"filters": ["refusals"]},
    },
}
CSRF_FAILURE_VIEW = "counters.web.http.errors.csrf_failure"
# Security headers on every response (SecurityMiddleware, XFrameOptionsMiddleware). These are
# Django's defaults, spelled out because tests rely on them.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp). No 'unsafe-inline' anywhere: templates load scripts and styles
# from static files and carry no inline <script>, <style>, style="" or on*="" attributes; scripts read
# data-* attributes instead. connect-src also gets ws:// and wss:// of the request's host, added per
# request by counters.web.http.content_policy.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
