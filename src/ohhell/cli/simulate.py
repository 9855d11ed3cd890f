"""``ohhell simulate``: random legal matches, summarised."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from .. import RulesError
from ..bots.tournament import duration_words
from ..describe import plural
from .common import add_rule_options, command_parser, examples, rules_from_args


def wins_words(wins: float) -> str:
    """Wins as people write them: ``2``, and ``2.5`` where a shared first place gave a part.

    >>> wins_words(2.0), wins_words(2.5), wins_words(1 / 3)
    ('2', '2.5', '0.33')
    """
    if wins == int(wins):
        return str(int(wins))
    return f"{wins:.2f}".rstrip("0")


def cmd_simulate(args: argparse.Namespace) -> int:
    from ..bots.simulate import simulate

    rules = rules_from_args(args)
    if args.games < 1:
        raise RulesError("--games must be at least 1")
    start = time.perf_counter()
    summary = simulate(rules, args.games, args.seed, Path(args.record_dir) if args.record_dir else None)
    elapsed = time.perf_counter() - start
    data = summary.as_dict() | {"seconds": round(elapsed, 3), "rules": rules.options()}
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(
        f"{plural(summary.games, 'match', 'matches')}, {plural(summary.hands, 'hand')}, "
        f"{plural(summary.tricks, 'trick')}, {plural(summary.actions, 'action')} in {duration_words(elapsed)}"
    )
    if summary.extra_hands:
        print(plural(summary.extra_hands, "tie-break hand"))
    # Seats counted from 1, as everywhere a person reads them.
    print(f"{'seat':>4}  {'mean score':>10}  {'exact bids':>10}  {'wins':>6}")
    for s, (mean, rate) in enumerate(zip(summary.mean_scores(), summary.exact_rates(), strict=True)):
        print(f"{s + 1:>4}  {mean:>10.1f}  {rate:>10.1%}  {wins_words(summary.wins[s]):>6}")
    return 0


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "simulate",
        help="play random legal matches and summarise them",
        description="Play whole matches of random legal moves and print totals per seat (seats from 1).",
        epilog=examples(
            "ohhell simulate --games 20 --seed 1",
            "ohhell simulate --preset okenuff --games 5 --json",
            "ohhell simulate --hook no --hand-sizes 3,2,1 --record-dir records",
        ),
    )
    add_rule_options(parser)
    parser.add_argument("--games", type=int, default=10, help="how many matches (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="the seed of the shuffles and moves (default 1)")
    parser.add_argument("--record-dir", metavar="DIR", help="write each match's game record here")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.set_defaults(func=cmd_simulate)
