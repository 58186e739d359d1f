"""The runbook in docs/operations.md names only commands, files and settings that exist."""

from __future__ import annotations

import re
from pathlib import Path

from django.core.management import get_commands

from counters.conf import SETTINGS

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS = ROOT / "docs" / "operations.md"
SECTION = "## The day traffic grows: a runbook"


def runbook() -> str:
    """The runbook's text, up to the next section."""
    text = OPERATIONS.read_text()
    start = text.index(SECTION)
    following = text.find("\n## ", start + len(SECTION))
    return text[start : following if following > 0 else None]


def test_every_command_it_names_exists():
    named = set(re.findall(r"\b(counters_[a-z]+)\b", runbook()))
    assert named and named <= set(get_commands()), named - set(get_commands())


def test_every_file_it_names_exists():
    paths = set(re.findall(r"`((?:deploy|counters|tests)/[\w./*-]+)`", runbook()))
    assert paths
    for path in paths:
        assert list(ROOT.glob(path)), path


def test_every_setting_it_names_is_read_by_the_site():
    named = set(re.findall(r"`([A-Z]+_[A-Z_]+)(?:=[^`]*)?`", runbook()))
    assert named <= set(SETTINGS) | {"DJANGO_SECRET_KEY", "REDIS_URL"}, named - set(SETTINGS)


def test_the_capacity_command_as_shown_runs(capsys):
    from django.core.management import call_command

    shown = re.search(r"manage\.py counters_capacity (.+)", runbook())[1].split()
    call_command("counters_capacity", *shown)
    assert "counting workers:" in capsys.readouterr().out
