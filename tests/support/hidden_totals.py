"""Find anything in socket frames that carries or betrays a hidden poll's totals (listed in docs/polls.md)."""

from __future__ import annotations

from collections.abc import Iterable

# What a hidden option may show: its id, label and counter's name. Anything else (votes, value, version,
# share, count) is a total or grows with one.
HIDDEN_OPTION_KEYS = frozenset({"id", "label", "counter"})
# A hidden poll's own fields that are totals; `voters` (how many voted) and the poll's `version` are public.
POLL_TOTAL_KEYS = frozenset({"total", "average", "distribution", "shares", "counts"})


def leaks(frames: Iterable[dict], poll: str) -> list[str]:
    """Where the frames carry the poll's totals: option counter states, option fields beyond its name,
    or the poll's total, average, distribution, shares or counts (each as `path: value`)."""
    found: list[str] = []
    for index, frame in enumerate(frames):
        _walk(frame, f"frame {index}", poll, found)
    return found


def _walk(node: object, path: str, poll: str, found: list[str]) -> None:
    if isinstance(node, list):
        for index, item in enumerate(node):
            _walk(item, f"{path}[{index}]", poll, found)
        return
    if not isinstance(node, dict):
        return
    prefix = f"{poll}."
    # A counter state ({"name": "<poll>.<option>", "value", "version", ...}) of a hidden option, or an
    # option entry ({"id", "label", "counter", ...}) showing more than its name.
    is_state = str(node.get("name", "")).startswith(prefix)
    if is_state or (str(node.get("counter", "")).startswith(prefix) and set(node) - HIDDEN_OPTION_KEYS):
        found.append(f"{path}: {node}")
    if node.get("id") == poll and "options" in node:
        found += [f"{path}.{key}: {node[key]}" for key in sorted(POLL_TOTAL_KEYS & set(node))]
    for key, value in node.items():
        _walk(value, f"{path}.{key}", poll, found)
