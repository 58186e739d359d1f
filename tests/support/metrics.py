"""Read a Prometheus scrape the way Prometheus does: parsed by prometheus_client's own parser."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

TOKEN = "test-metrics-token-0123456789"
AUTHORIZATION = f"Bearer {TOKEN}"


def sample(text: str, name: str, **labels: str) -> float:
    """The sum of the samples called `name` whose labels include `labels` (0 when there is none)."""
    return sum(
        found.value
        for family in text_string_to_metric_families(text)
        for found in family.samples
        if found.name == name and labels.items() <= found.labels.items()
    )


def sample_names(text: str) -> set[str]:
    """Every sample name in a scrape."""
    return {found.name for family in text_string_to_metric_families(text) for found in family.samples}
