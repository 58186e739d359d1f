"""counters/conf.py: defaults in one table, environment strings converted, bad values found at start."""

from __future__ import annotations

from pathlib import Path

from django.core.management import call_command
from django.core.management.base import SystemCheckError

from counters import conf


def test_defaults_apply_when_a_setting_is_absent_or_empty(settings):
    settings.COUNTERS_DYNAMODB_READ_TIMEOUT = ""
    del settings.COUNTERS_VOTE_CONCURRENCY
    assert conf.dynamodb_read_timeout() == 2.0
    assert conf.vote_concurrency() == 8


def test_strings_from_the_environment_are_converted(settings):
    settings.COUNTERS_DYNAMODB_MAX_POOL = "12"
    settings.COUNTERS_EMBEDDED_DYNAMODB = "yes"
    settings.COUNTERS_DATA_DIR = "/tmp/counters-data"
    assert conf.dynamodb_max_pool() == 12
    assert conf.embedded_dynamodb() is True
    assert conf.data_dir() == Path("/tmp/counters-data")


def test_an_empty_vote_rate_turns_the_limit_off_as_zero_does(settings):
    settings.COUNTERS_VOTE_RATE = ""
    assert conf.vote_rate().unlimited
    settings.COUNTERS_VOTE_RATE = "5/m"
    assert (conf.vote_rate().count, conf.vote_rate().seconds) == (5, 60)


def test_an_unreadable_setting_stops_the_site_at_start(settings):
    settings.COUNTERS_DYNAMODB_MAX_POOL = "many"
    settings.COUNTERS_VOTE_RATE = "lots"
    problems = conf.check_settings()
    assert any("COUNTERS_DYNAMODB_MAX_POOL" in problem for problem in problems)
    assert any("COUNTERS_VOTE_RATE" in problem for problem in problems)
    try:
        call_command("check")
    except SystemCheckError as exc:
        assert "counters.E001" in str(exc)
    else:
        raise AssertionError("`manage.py check` accepted an unreadable setting")


def test_the_stream_reader_is_on_in_the_workers_unless_off(settings):
    assert conf.stream_reader() == "off"  # the test settings keep it off
    del settings.COUNTERS_STREAM_READER
    assert conf.stream_reader() == "worker"  # a site's default
    settings.COUNTERS_STREAM_READER = " Worker "
    assert conf.stream_reader() == "worker"
    settings.COUNTERS_STREAM_READER = "lambda"
    assert any("COUNTERS_STREAM_READER" in problem for problem in conf.check_settings())
