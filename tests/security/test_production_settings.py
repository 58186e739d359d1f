"""Production settings refuse unsafe values, pass `check --deploy`, keep HTTPS switches configurable."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from django.core.management.utils import get_random_secret_key

from tests.support.processes import PROJECT_DIR, site_environment
from tests.support.site import REDIS_URL

SHOW_SETTINGS = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({k: getattr(s, k, None) for k in ["
    "'DEBUG', 'SECURE_SSL_REDIRECT', 'SECURE_HSTS_SECONDS', 'SECURE_HSTS_INCLUDE_SUBDOMAINS', "
    "'SECURE_HSTS_PRELOAD', 'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'SECURE_PROXY_SSL_HEADER', "
    "'ALLOWED_HOSTS']}))"
)


def production_env(**overrides: str) -> dict[str, str]:
    """A production environment with a real key and host; `overrides` may blank any of them."""
    env = site_environment(
        DJANGO_SETTINGS_MODULE="counters_site.settings_production",
        DJANGO_SECRET_KEY=get_random_secret_key(),
        DJANGO_ALLOWED_HOSTS="counters.example.org",
        DYNAMODB_ENDPOINT_URL="http://127.0.0.1:9",  # never contacted: checks and settings only
    )
    env.pop("DJANGO_DEBUG")
    env.update(overrides)
    return {key: value for key, value in env.items() if value != "<unset>"}


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run python with `args` in the project directory."""
    return subprocess.run(
        [sys.executable, *args], cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=120
    )


def settings_of(env: dict[str, str]) -> dict:
    """The production settings as the process sees them."""
    result = run(env, "-c", SHOW_SETTINGS)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_check_deploy_is_clean(tmp_path):
    result = run(production_env(COUNTERS_DATA_DIR=str(tmp_path)), "manage.py", "check", "--deploy")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
    assert "WARNING" not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("overrides", "complaint"),
    [
        ({"DJANGO_SECRET_KEY": "<unset>"}, "Set DJANGO_SECRET_KEY"),
        ({"DJANGO_SECRET_KEY": ""}, "Set DJANGO_SECRET_KEY"),
        ({"DJANGO_SECRET_KEY": "django-insecure-" + "a1b2c3d4e5" * 6}, "placeholder"),
        ({"DJANGO_SECRET_KEY": "test-site-secret-key-0123456789abcdefghijklmnopqrstuvwxyz"}, "placeholder"),
        ({"DJANGO_SECRET_KEY": "short-but-random-9f8e7d"}, "placeholder"),
        ({"DJANGO_SECRET_KEY": "a" * 80}, "placeholder"),
        ({"DJANGO_DEBUG": "true"}, "DJANGO_DEBUG must be off"),
        ({"DJANGO_ALLOWED_HOSTS": "<unset>"}, "DJANGO_ALLOWED_HOSTS"),
        ({"COUNTERS_TEST_CLOCK_FILE": "/tmp/clock"}, "COUNTERS_TEST_CLOCK_FILE"),
    ],
)
def test_unsafe_values_are_refused(tmp_path, overrides, complaint):
    result = run(production_env(COUNTERS_DATA_DIR=str(tmp_path), **overrides), "manage.py", "check")

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert complaint in result.stderr


def test_https_hardening_is_on_by_default(tmp_path):
    values = settings_of(production_env(COUNTERS_DATA_DIR=str(tmp_path)))

    assert values["DEBUG"] is False
    assert values["SECURE_SSL_REDIRECT"] is True
    assert values["SECURE_HSTS_SECONDS"] >= 31536000
    assert values["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert values["SESSION_COOKIE_SECURE"] is True
    assert values["CSRF_COOKIE_SECURE"] is True
    assert values["ALLOWED_HOSTS"] == ["counters.example.org"]


def test_https_switches_are_configurable(tmp_path):
    values = settings_of(
        production_env(
            COUNTERS_DATA_DIR=str(tmp_path),
            DJANGO_SECURE_SSL_REDIRECT="false",
            DJANGO_SECURE_HSTS_SECONDS="3600",
            DJANGO_SECURE_HSTS_PRELOAD="true",
            DJANGO_SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto",
        )
    )

    assert values["SECURE_SSL_REDIRECT"] is False
    assert values["SECURE_HSTS_SECONDS"] == 3600
    assert values["SECURE_HSTS_PRELOAD"] is True
    assert values["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]


def test_production_refuses_to_start_the_embedded_emulator_unless_enabled(tmp_path):
    """An empty endpoint in production is a clear ImproperlyConfigured, not a Java process on first use."""
    lookup = "import django; django.setup(); from counters.store import get_store; get_store()"
    env = production_env(DYNAMODB_ENDPOINT_URL="", COUNTERS_DATA_DIR=str(tmp_path))
    refused = run(env, "-c", lookup)
    assert refused.returncode != 0
    assert "ImproperlyConfigured" in refused.stderr and "COUNTERS_EMBEDDED_DYNAMODB" in refused.stderr
    assert not (tmp_path / "dynamodb").exists(), "nothing was started or prepared"


def test_sites_sharing_a_redis_keep_their_vote_windows_apart(tmp_path, redis_prefix):
    """Each site's vote limit counts under its COUNTERS_REDIS_PREFIX, never another site's."""
    one_vote = (
        "import django; django.setup(); from limits import RateLimitItemPerHour; "
        "from counters.web.http.ratelimit import SCOPE, shared_limiter; "
        "print(shared_limiter().hit(RateLimitItemPerHour(1), SCOPE, '192.0.2.1'))"
    )

    def vote_allowed(site: str) -> str:
        env = production_env(
            COUNTERS_DATA_DIR=str(tmp_path),
            REDIS_URL=REDIS_URL,
            COUNTERS_REDIS_PREFIX=f"{redis_prefix}-{site}",
        )
        result = run(env, "-c", one_vote)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    assert [vote_allowed("a"), vote_allowed("a"), vote_allowed("b")] == ["True", "False", "True"]
