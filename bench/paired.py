"""Two versions of a bot on the same deals: which scored more?

Each run is the ``--rows`` file of ``bench/strength.py``. Rows of the two
runs are matched by seed and deal (the same cards), and the comparison is
made deal by deal on *our* seats' own scores: for each deal, the mean score
of our bot over its seats in run A minus the same in run B, then the mean
of that over the deals with its 95% confidence interval.

Our own scores, not the two runs' differences against their baselines:
OpenSpiel's ISMCTS does not replay a deal the same way in two runs even with
the same seeds, so each run's baseline games differ and their noise would
add to the comparison. (Against our own opponents at a fixed budget the
baselines are the same and the two ways agree; both are printed.)

Several runs on each side (say three seeds) are given in the same order,
``--a A1 A2 A3 --b B1 B2 B3``; A1 is paired with B1 and so on.

    python bench/paired.py --a steered.rows --b default.rows
    python bench/paired.py --a s1.rows s2.rows --b d1.rows d2.rows --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from strength import mean_ci

Row = dict[str, Any]


class RowsError(ValueError):
    """A rows file that cannot be read or paired, with the reason."""


def load_rows(path: str | Path) -> list[Row]:
    """The rows of one ``strength.py --rows`` file."""
    try:
        rows = json.loads(Path(path).read_text())
    except OSError as error:
        raise RowsError(f"{path}: cannot be read ({error.strerror})") from error
    except json.JSONDecodeError as error:
        raise RowsError(f"{path}: not JSON (line {error.lineno}: {error.msg})") from error
    if not isinstance(rows, list):
        raise RowsError(f"{path}: not a list of deals (is it a strength.py --rows file?)")
    for i, row in enumerate(rows):
        missing = [k for k in ("deal", "dealer", "ours_scores", "ours_exacts", "diff") if k not in row]
        if missing:
            raise RowsError(f"{path}: deal row {i} lacks {', '.join(missing)}")
    return rows


def _key(row: Row) -> tuple[object, int]:
    # Rows written before the seed was recorded are matched by deal alone.
    return row.get("seed"), int(row["deal"])


def pair(a: list[list[Row]], b: list[list[Row]]) -> list[tuple[Row, Row]]:
    """The rows of the same deals, run by run (``a[i]`` with ``b[i]``)."""
    if len(a) != len(b):
        raise RowsError(f"{len(a)} runs on one side and {len(b)} on the other: give them in pairs")
    pairs: list[tuple[Row, Row]] = []
    for run, (rows_a, rows_b) in enumerate(zip(a, b, strict=True), start=1):
        by_key = {_key(r): r for r in rows_b}
        for row in rows_a:
            other = by_key.get(_key(row))
            if other is None:
                continue
            if other["dealer"] != row["dealer"] or len(other["ours_scores"]) != len(row["ours_scores"]):
                raise RowsError(
                    f"run pair {run}, deal {row['deal']}: not the same deal "
                    "(another dealer or table size): were both runs made with the same settings and seed?"
                )
            pairs.append((row, other))
    if not pairs:
        raise RowsError(
            "no deal is in both runs: were they made with the same seed? "
            "(rows are matched by seed and deal; rows written before the seed was recorded have none)"
        )
    return pairs


def compare(pairs: list[tuple[Row, Row]]) -> dict[str, Any]:
    """A minus B a deal on our own scores, on the differences, and in exact bids."""
    own = [statistics.fmean(a["ours_scores"]) - statistics.fmean(b["ours_scores"]) for a, b in pairs]
    diffs = [a["diff"] - b["diff"] for a, b in pairs]
    exact_a = statistics.fmean(statistics.fmean(map(float, a["ours_exacts"])) for a, _ in pairs)
    exact_b = statistics.fmean(statistics.fmean(map(float, b["ours_exacts"])) for _, b in pairs)
    m, ci = mean_ci(own)
    dm, dci = mean_ci(diffs)
    return {
        "deals": len(pairs),
        "own_score_a_minus_b": round(m, 3),
        "ci95": round(ci, 3),
        "diff_a_minus_b": round(dm, 3),
        "diff_ci95": round(dci, 3),
        "exact_a": round(exact_a, 3),
        "exact_b": round(exact_b, 3),
        # How often both runs' baselines (the opponent alone) scored alike: all
        # of them for a deterministic opponent, few for OpenSpiel's.
        "same_baseline": round(
            sum(a.get("theirs_scores") == b.get("theirs_scores") for a, b in pairs) / len(pairs), 3
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", nargs="+", required=True, metavar="ROWS", help="run(s) of version A")
    parser.add_argument(
        "--b", nargs="+", required=True, metavar="ROWS", help="run(s) of version B, same order"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        out = compare(pair([load_rows(p) for p in args.a], [load_rows(p) for p in args.b]))
    except RowsError as error:
        print(f"paired.py: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out, indent=2))
    print(
        f"{'deals':>6}{'A - B own':>11}{'± 95%':>8}{'on diffs':>10}{'± 95%':>8}{'exact A':>9}{'exact B':>9}"
    )
    print(
        f"{out['deals']:>6}{out['own_score_a_minus_b']:>+11.2f}{out['ci95']:>8.2f}"
        f"{out['diff_a_minus_b']:>+10.2f}{out['diff_ci95']:>8.2f}{out['exact_a']:>9.1%}{out['exact_b']:>9.1%}"
    )
    print(f"baselines alike in {out['same_baseline']:.0%} of the deals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
