"""`python -m bench NAME...`: all, store, views, servers, beacon, workers, votes, before, cost, exactness,
fanout, streams, room, profile.

Add `--quick` for tiny bounded runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from bench import report
from bench.budget import FULL, QUICK
from bench.measure import load_average

# Scenarios in run order. Each site figure carries its own baseline measured next to it.
SCENARIOS = (
    "store",
    "views",
    "servers",
    "beacon",
    "workers",
    "votes",
    "before",
    "cost",
    "exactness",
    "fanout",
    "streams",
    "room",
    "profile",
)


def machine() -> str:
    """Cores, CPU model and Python of this machine."""
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
    except OSError:
        cpuinfo = ""
    models = [line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if line.startswith("model name")]
    model = models[0] if models else "unknown CPU"
    system = f"{platform.system()} {platform.release()}"
    return f"{os.cpu_count()} cores ({model}), {system}, Python {platform.python_version()}"


def plan(names: list[str]) -> list[str]:
    """The scenarios to run for `names`, in the suite's order."""
    return [scenario for scenario in SCENARIOS if scenario in names or "all" in names]


def main(argv: list[str] | None = None) -> int:
    """Run the named scenarios, write the results, print the Markdown, exit 1 if a check failed."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("names", nargs="+", choices=("all", *SCENARIOS), metavar="NAME")
    parser.add_argument("--quick", action="store_true", help="tiny bounded runs (for tests)")
    parser.add_argument("--output", help="result name (default: the scenario, plus -quick)")
    parser.add_argument("--results-dir", type=Path, default=report.RESULTS_DIR, help="where to write")
    args = parser.parse_args(argv)
    budget = QUICK if args.quick else FULL
    name = args.output or ("-".join(args.names) + ("-quick" if args.quick else ""))
    scenarios = plan(args.names)
    with_site = scenarios != ["store"]
    started, began = datetime.now(UTC), time.monotonic()
    run: dict = {
        "name": name,
        "command": "python -m bench " + " ".join(argv if argv is not None else sys.argv[1:]),
        "machine": machine(),
        "started": started.isoformat(timespec="seconds"),
        "load_average_before": load_average(),
        "sections": {},
    }
    from bench.environment import bench_environment

    with bench_environment(with_site=with_site, results_dir=args.results_dir, run_name=name) as env:
        for scenario in scenarios:
            module = __import__(f"bench.scenarios.{scenario}", fromlist=["run"])
            run["sections"][scenario] = module.run(env, budget, run["sections"])
            print(f"{scenario}: done", file=sys.stderr)
    run["load_average_after"] = load_average()
    run["seconds"] = round(time.monotonic() - began, 1)
    checks = [section.get("checks", {}) for section in run["sections"].values()]
    run["exact"] = all(check["exact"] for check in checks if "exact" in check)
    json_path, md_path = report.write(run, args.results_dir)
    print(report.markdown(run))
    print(f"\nwrote {json_path} and {md_path}", file=sys.stderr)
    return 0 if run["exact"] else 1


if __name__ == "__main__":
    sys.exit(main())
