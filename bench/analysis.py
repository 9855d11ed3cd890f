"""How long a post-game review takes, and how much its verdicts depend on the seed.

Plays one 19-hand match of the pagat rules (4 players, 10 cards down to 1
and back) with bots of different strength, so there are mistakes to find,
or reads the match from ``--record``; reviews it at the default budget (or
``--budget``) with seed 1, timed, printing a line per hand as it goes; then
reviews it again with seed 2 and counts the decisions on which the two
reviews name the same best choice (cards that are the same play count as
one). Prints a short table, or JSON with ``--json``.

    python bench/analysis.py
    python bench/analysis.py --budget 0.5 --jobs 2 --json
    python bench/analysis.py --record game.ohr --seeds 1,7
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from typing import Any

from ohhell import PRESETS, Record, load
from ohhell.analysis import Budget, Progress, Review, review_record
from ohhell.bots import get_bot, play_match

PLAYERS = ("expert:simulations=400", "intermediate", "beginner", "intermediate")
"""The bench match's seats: an expert, two intermediate bots and a beginner."""

NAMES = ("Ann", "Bob", "Cid", "Dee")


def bench_match(seed: int) -> Record:
    """The 19-hand match the bench reviews, the same for the same seed."""
    bots = []
    for spec in PLAYERS:
        name, _, options = spec.partition(":")
        kwargs = {k: int(v) for k, v in (o.split("=") for o in options.split(",") if o)}
        bots.append(get_bot(name, **kwargs))
    state = play_match(PRESETS["pagat"], bots, random.Random(seed))
    players = ", ".join(f"{name} {spec.split(':')[0]}" for name, spec in zip(NAMES, PLAYERS, strict=True))
    return Record.from_state(state, NAMES, tags=(("players", players), ("seed", str(seed))))


def same_best(a: Review, b: Review) -> tuple[int, int, dict[str, list[int]]]:
    """Decisions both reviews priced, how many name the same best choice,
    and both counts by kind of decision."""
    theirs = {(d.version, d.seat): d for d in b.decisions}
    agree = total = 0
    kinds: dict[str, list[int]] = {}
    for d in a.decisions:
        other = theirs.get((d.version, d.seat))
        if other is None:
            continue
        same_play = next((c.same_as for c in d.choices if c.choice == d.best), ())
        hit = other.best == d.best or other.best in same_play
        total += 1
        agree += hit
        row = kinds.setdefault(d.kind, [0, 0])
        row[0] += 1
        row[1] += hit
    return total, agree, kinds


def timed(record: Record, seed: int, budget: Budget, jobs: int, quiet: bool) -> tuple[Review, float]:
    def progress(p: Progress) -> None:
        if not quiet and (p.done == p.total or p.hands_done != getattr(progress, "hands", -1)):
            progress.hands = p.hands_done  # type: ignore[attr-defined]
            print(f"  seed {seed}: {p.hands_done}/{p.hands} hands, {p.done}/{p.total} units", file=sys.stderr)

    start = time.perf_counter()
    review = review_record(record, seed=seed, budget=budget, jobs=jobs, progress=progress)
    return review, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--record", help="review this record instead of the bench match")
    parser.add_argument("--match-seed", type=int, default=7, help="the seed of the bench match (default 7)")
    parser.add_argument("--seeds", default="1,2", help="the two review seeds (default 1,2)")
    parser.add_argument("--budget", type=float, default=1.0, help="the default budget times this (default 1)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1: one core)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)
    record = load(args.record) if args.record else bench_match(args.match_seed)
    budget = Budget() if args.budget == 1.0 else Budget.scaled(args.budget)
    first, second = (int(s) for s in args.seeds.split(","))
    review, seconds = timed(record, first, budget, args.jobs, args.quiet)
    again, seconds_again = timed(record, second, budget, args.jobs, args.quiet)
    total, agree, kinds = same_best(review, again)
    hands = len(review.hands)
    out: dict[str, Any] = {
        "record": args.record or f"bench match, seed {args.match_seed}: " + dict(record.tags)["players"],
        "hands": hands,
        "decisions": len(review.decisions),
        "budget": budget.to_json(),
        "jobs": args.jobs,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "seconds": round(seconds, 1),
        "seconds_second_seed": round(seconds_again, 1),
        "seconds_per_hand": round(seconds / max(1, hands), 2),
        "agreement": round(agree / total, 3) if total else None,
        "agreement_by_kind": {k: round(v[1] / v[0], 3) for k, v in sorted(kinds.items())},
        "seats": [
            {"name": s.name, "score": s.score, "loss": s.loss, "luck": s.luck, "rest": s.rest}
            for s in review.summary
        ],
        "luck_difference": [
            round(b.luck - a.luck, 1) for a, b in zip(review.summary, again.summary, strict=True)
        ],
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"{out['record']}: {hands} hands, {out['decisions']} decisions reviewed")
    print(f"budget {budget.simulations} simulations a decision, {budget.luck_playouts} playouts a hand")
    print(f"{'':<22}{'seconds':>9}{'per hand':>10}")
    print(f"{'seed ' + str(first):<22}{seconds:>9.1f}{seconds / max(1, hands):>10.2f}")
    print(f"{'seed ' + str(second):<22}{seconds_again:>9.1f}{seconds_again / max(1, hands):>10.2f}")
    print(
        f"same best choice: {agree}/{total} = {agree / max(1, total):.1%} "
        + ", ".join(f"{k} {v[1]}/{v[0]}" for k, v in sorted(kinds.items()))
    )
    for s, other in zip(review.summary, again.summary, strict=True):
        lost = f"lost {s.loss:6.1f} / {other.loss:6.1f}"
        print(f"  {s.name:<20} score {s.score:>4}  {lost}  luck {s.luck:+6.1f} / {other.luck:+6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
