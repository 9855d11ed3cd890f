"""The bots' landmark ratings (src/ohhell/web/landmarks.json): duplicate
matches among the levels, rated with the server's own model.

Each deal of a match is played four times with the levels rotated through
the seats (the same cards, dealt from the same chance stream), so the cards
favour no level. Every match is rated as the server rates one
(``ohhell.skill.new_ratings``), all levels starting as newcomers.
Prints each level's mean (mu), its uncertainty (sigma), the shown rating
with a 95% interval (mu +- 2 sigma), and its average points a match; with
``--write`` replaces landmarks.json, with this command in it.

    python bench/landmarks.py --deals 10 --expert-seconds 0.1
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ohhell import make_rules
from ohhell.bots import get_bot, play_match
from ohhell.skill import SCALE, Entrant, model, new_ratings, places, shown

LEVELS = ("random", "beginner", "intermediate", "expert")
LANDMARKS = Path(__file__).resolve().parents[1] / "src" / "ohhell" / "web" / "landmarks.json"


def _match(args: tuple[str, int, int, float, tuple[str, ...]]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    preset, deal, rotation, expert_seconds, levels = args
    rules = make_rules(preset)
    seated = tuple(levels[(s + rotation) % len(levels)] for s in range(rules.players))
    bots = [
        get_bot(level, seconds=expert_seconds) if level == "expert" else get_bot(level) for level in seated
    ]
    # The same chance stream for every rotation: the same deals.
    state = play_match(
        rules, bots, random.Random(f"bots:{deal}:{rotation}"), chance_rng=random.Random(f"deal:{deal}")
    )
    return seated, tuple(state.totals)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=10, help="match deals, each played in every rotation")
    parser.add_argument("--preset", default="pagat")
    parser.add_argument("--expert-seconds", type=float, default=0.1, help="the expert's time a decision")
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--write", action="store_true", help="replace src/ohhell/web/landmarks.json")
    args = parser.parse_args()
    levels = tuple(args.levels.split(","))
    players = make_rules(args.preset).players
    if len(levels) != players:
        print(f"give {players} levels for {args.preset}'s {players} seats", file=sys.stderr)
        return 2
    jobs = [
        (args.preset, d, r, args.expert_seconds, levels) for d in range(args.deals) for r in range(players)
    ]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(_match, jobs))
    rating = {level: (model().mu, model().sigma) for level in levels}
    points: dict[str, list[int]] = {level: [] for level in levels}
    for seated, totals in results:
        ranks = places([Entrant(s, score) for s, score in enumerate(totals)])
        after = new_ratings([rating[level] for level in seated], ranks)
        for level, new, score in zip(seated, after, totals, strict=True):
            rating[level] = new
            points[level].append(score)
    took = time.perf_counter() - start
    print(
        f"{len(results)} matches of {args.preset} ({args.deals} deals x {players} rotations), "
        f"expert {args.expert_seconds:g} s a decision, {args.workers} processes, {took:.0f} s"
    )
    print(f"{'level':14} {'mu':>6} {'sigma':>6} {'shown':>6}  {'95% interval':>13}  {'points/match':>12}")
    for level in sorted(levels, key=lambda lv: rating[lv][0]):
        mu, sigma = rating[level]
        low, high = shown(mu - 2 * sigma), shown(mu + 2 * sigma)
        print(
            f"{level:14} {mu:6.2f} {sigma:6.2f} {shown(mu):6d}  {low:5d} to {high:5d}  "
            f"{statistics.mean(points[level]):12.1f}"
        )
    if args.write:
        command = " ".join(["python bench/landmarks.py", *sys.argv[1:]])
        data = {
            "note": f"Measured by the command below; shown rating = 1500 + {SCALE:g} x (mu - 25).",
            "command": command,
            "matches": len(results),
            "levels": {
                level: {"mu": round(rating[level][0], 3), "sigma": round(rating[level][1], 3)}
                for level in levels
            },
        }
        LANDMARKS.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {LANDMARKS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
