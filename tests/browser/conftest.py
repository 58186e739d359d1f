"""Fixtures of the browser tests."""

from __future__ import annotations

import pytest

from tests.support.browser import chromium


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the whole module."""
    with chromium() as browser:
        yield browser
