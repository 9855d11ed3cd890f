"""How a duplicate tournament scales over worker processes (and Ray), with a
check that every run gives the same numbers.

Plays the same tournament (same bots, deals and seed) once for each ``--jobs``
count and, with ``--ray ADDRESS``, once on Ray; prints JSON (for machines)
and a table: the seconds, deals a second, the speed-up over the first run,
and whether the result, timing fields left out, equals the first run's. Exits
with 1 if any run differs.

    python bench/scaling.py [--bots intermediate,beginner,random] [--deals 2000] [--jobs 1,2,4] [--ray local]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from typing import Any

from ohhell.bots.tournament import local_cores, run_tournament
from ohhell.rules import PRESETS


def default_jobs() -> str:
    """1, 2, 4, ... up to every core, and every core."""
    cores, counts = local_cores(), [1]
    while counts[-1] * 2 < cores:
        counts.append(counts[-1] * 2)
    if cores > 1:
        counts.append(cores)
    return ",".join(map(str, counts))


def measure(
    bots: list[str], deals: int, seed: int, runs: list[tuple[str, int | None, str | None]]
) -> list[dict[str, Any]]:
    """One row per run: (label, jobs, ray address)."""
    rules = PRESETS["pagat"]
    rows: list[dict[str, Any]] = []
    first: dict[str, Any] | None = None
    for label, jobs, ray in runs:
        result = run_tournament(bots, rules, deals, seed, jobs=jobs, progress=False, ray=ray)
        numbers = result.as_dict(timing=False)
        first = first or numbers
        base = rows[0]["seconds"] if rows else result.seconds
        rows.append(
            {
                "run": label,
                "seconds": round(result.seconds, 2),
                "deals_per_second": round(deals / result.seconds, 1),
                "speedup": round(base / result.seconds, 2),
                "same_numbers": numbers == first,
            }
        )
        print(f"  {label}: {result.seconds:.1f} s", file=sys.stderr, flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bots", default="intermediate,beginner,random")
    parser.add_argument("--deals", type=int, default=2000, help="deals of 4-player pagat (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", default=default_jobs(), help=f"comma-separated (default {default_jobs()})")
    parser.add_argument("--ray", metavar="ADDRESS", help="also a run on Ray at this address (e.g. local)")
    args = parser.parse_args()
    runs: list[tuple[str, int | None, str | None]] = [
        (f"jobs {j}", int(j), None) for j in args.jobs.split(",")
    ]
    if args.ray:
        runs.append((f"ray {args.ray}", None, args.ray))
    bots = args.bots.split(",")
    rows = measure(bots, args.deals, args.seed, runs)
    out = {
        "machine": f"{platform.machine()}, {local_cores()} cores, Python {platform.python_version()}",
        "bots": bots,
        "deals": args.deals,
        "seed": args.seed,
        "runs": rows,
    }
    print(json.dumps(out, indent=2))
    print(f"\n{args.deals} deals of 4-player pagat, {', '.join(bots)}; {out['machine']}")
    print(f"{'run':<16}{'seconds':>9}{'deals/s':>10}{'speed-up':>10}  same numbers")
    for row in rows:
        print(
            f"{row['run']:<16}{row['seconds']:>9.1f}{row['deals_per_second']:>10.1f}"
            f"{row['speedup']:>10.2f}  {'yes' if row['same_numbers'] else 'NO'}"
        )
    return 0 if all(row["same_numbers"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
