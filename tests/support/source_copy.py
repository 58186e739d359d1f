"""A copy of this repository to build packages from, so that a build writes nothing into the work tree."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.processes import PROJECT_DIR

# What a copy of the repository leaves out: caches, local data, other builds.
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", "node_modules", "var", "build", "dist", "*.egg-info", "__pycache__",
    ".pytest_cache", ".ruff_cache", ".hypothesis", "test-artifacts",
)  # fmt: skip


def copy_of_repository(destination: Path) -> Path:
    """The repository's files as a clone has them, at `destination`; no earlier build/ leaks in."""
    shutil.copytree(PROJECT_DIR, destination, ignore=NOT_COPIED)
    return destination
