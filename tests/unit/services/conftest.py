"""Fixtures of the service tests: what the services hand to the live push."""

from __future__ import annotations

import pytest

from counters.live import broadcast


@pytest.fixture
def published(monkeypatch) -> list[tuple[str, int, int]]:
    """Every (name, value, version) the services publish, in order, instead of a channel layer."""
    sent: list[tuple[str, int, int]] = []

    def publish(states) -> None:
        sent.extend((state.name, state.value, state.version) for state in states)

    monkeypatch.setattr(broadcast, "publish", publish)
    return sent
