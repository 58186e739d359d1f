"""Fixtures of the service tests: what the services hand to the live push."""

from __future__ import annotations

import pytest

from tests.support.live import RecordingBroadcaster


@pytest.fixture
def published(process_runtime) -> list[tuple[str, int, int]]:
    """Every (name, value, version) the services publish, in order, instead of a channel layer."""
    return process_runtime.give("broadcaster", RecordingBroadcaster()).triples
