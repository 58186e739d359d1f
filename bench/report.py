"""Write a run's results as JSON and as a Markdown table."""

from __future__ import annotations

import json
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent / "results"
# Columns shown in Markdown, in order, when a section's rows have them.
COLUMNS = (
    ("path", "path"),
    ("concurrency", "C"),
    ("requests", "requests"),
    ("samples", "samples"),
    ("per_second", "per s"),
    ("p50_ms", "p50 ms"),
    ("p99_ms", "p99 ms"),
    ("store_limit_per_second", "store limit per s (paired)"),
    ("vs_store_limit", "÷ store limit"),
    ("acknowledged", "acknowledged"),
    ("final_total", "final total"),
    ("lost", "lost"),
    ("doubled", "doubled"),
    ("errors", "errors"),
    ("store_writes_per_view", "store writes / view"),
    ("site_cpu_ms_per_request", "site CPU ms / req"),
    ("now_vs_before_per_second", "now ÷ before, per s"),
    ("now_vs_before_site_cpu_ms", "now ÷ before, site CPU ms"),
    ("cpu_seconds", "CPU s (site / store / load [/ nginx])"),
)
CPU_ROLES = ("site", "DynamoDB Local", "load generator + bench")
# Shown after the others only in runs that had it.
PROXY_ROLE = "nginx"


def cell(key: str, value: object) -> str:
    """One table cell."""
    if key == "cpu_seconds" and isinstance(value, dict):
        roles = [*CPU_ROLES, PROXY_ROLE] if PROXY_ROLE in value else CPU_ROLES
        return " / ".join(str(value.get(role, "–")) for role in roles)
    return "–" if value is None else str(value)


def table(rows: list[dict]) -> list[str]:
    """A Markdown table of the columns these rows have."""
    keys = [(key, label) for key, label in COLUMNS if any(key in row for row in rows)]
    lines = ["| " + " | ".join(label for _, label in keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(cell(key, row.get(key)) for key, _ in keys) + " |" for row in rows]
    return lines


def markdown(run: dict) -> str:
    """The whole run as Markdown: context, then one section per scenario."""
    out = [
        f"# Benchmark `{run['name']}`",
        "",
        f"- command: `{run['command']}`",
        f"- machine: {run['machine']}",
        f"- load average before / after: {run['load_average_before']} / {run['load_average_after']}",
        f"- started: {run['started']}, took {run['seconds']} s",
        "",
    ]
    for section in run["sections"].values():
        out += [f"## {section['title']}", ""]
        if section.get("available") is False:
            out += [f"{section['detail']}", ""]
            continue
        for key in ("rows", "ratios"):
            if section.get(key):
                out += [*table(section[key]), ""]
        if "checks" in section:
            out += ["Checks: " + ", ".join(f"{k} = {v}" for k, v in section["checks"].items()), ""]
        if "figure" in section:
            out += ["```json", json.dumps(section["figure"], indent=2), "```", ""]
        for key in ("self_percent_by_layer", "self_percent_top_functions", "inclusive_percent_app_functions"):
            if section.get(key):
                out += [f"{key.replace('_', ' ')} ({section['samples']} samples):", ""]
                out += ["| frame | % |", "|---|---|"]
                out += [f"| `{name}` | {percent} |" for name, percent in section[key]]
                out.append("")
    return "\n".join(out)


def write(run: dict, results_dir: Path = RESULTS_DIR) -> tuple[Path, Path]:
    """Write <results_dir>/<name>.json and .md (default bench/results); return both paths."""
    results_dir.mkdir(parents=True, exist_ok=True)
    json_path = results_dir / f"{run['name']}.json"
    md_path = results_dir / f"{run['name']}.md"
    json_path.write_text(json.dumps(run, indent=2) + "\n")
    md_path.write_text(markdown(run) + "\n")
    return json_path, md_path
