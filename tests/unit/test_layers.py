"""The app's floors hold: `lint-imports` keeps pyproject.toml's layers contracts (no import goes up)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.processes import PROJECT_DIR

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def test_no_module_imports_a_floor_above_its_own():
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout
