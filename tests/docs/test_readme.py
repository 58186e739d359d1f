"""The README's settings table is counters/conf.py's SETTINGS: every name, with its default."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from counters.conf import SETTINGS

README = Path(__file__).resolve().parents[2] / "README.md"
HEADER = "| setting | default | meaning |"
ROW = re.compile(r"^\| `(?P<name>[A-Z0-9_]+)` \| (?P<default>[^|]+) \|")


def settings_rows() -> dict[str, str]:
    """Name -> default cell of each row of the README's table of the app's settings."""
    lines = README.read_text().splitlines()
    start = lines.index(HEADER) + 2  # past the header and its separator
    rows = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        match = ROW.match(line)
        assert match, f"not a settings row: {line}"
        rows[match["name"]] = match["default"].strip()
    return rows


def shown(default: Any) -> str:
    """A default as the README writes it: `true`, `1`, `0.1`, `30/m`."""
    if isinstance(default, bool):
        return "true" if default else "false"
    if isinstance(default, float) and default.is_integer():
        return str(int(default))
    return str(default)


def test_the_readme_lists_exactly_the_apps_settings():
    assert list(settings_rows()) == list(SETTINGS)


def test_the_readme_gives_each_settings_default():
    rows = settings_rows()
    for name, spec in SETTINGS.items():
        if spec.default in (None, ""):
            continue  # described in words (an empty endpoint, a path under BASE_DIR)
        assert rows[name].startswith(f"`{shown(spec.default)}`"), (name, rows[name])
