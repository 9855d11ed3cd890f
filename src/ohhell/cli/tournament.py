"""``ohhell tournament``: bots against each other on duplicate deals."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .. import RulesError
from ..bots import UnknownBotError, bot_names
from ..bots.tournament import TournamentError, format_result, plot_result, require_matplotlib, run_tournament


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``ohhell tournament`` on the command's subparsers."""
    from .common import add_rule_options  # imported here: cli.py imports this module

    parser: argparse.ArgumentParser = subparsers.add_parser(
        "tournament",
        help="play bots against each other on duplicate deals and compare them",
        description="Duplicate tournament: every deal is replayed with the bots rotated through the seats.",
    )
    parser.add_argument(
        "--bots",
        default="intermediate,beginner,random",
        help=(
            f"comma-separated bots: names from {', '.join(bot_names())}, or module:attribute "
            "paths to bot factories (default intermediate,beginner,random)"
        ),
    )
    add_rule_options(parser)
    parser.add_argument("--deals", type=int, default=100, help="deals (or matches with --matches) to play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (same result as 1)")
    parser.add_argument("--matches", action="store_true", help="play whole matches instead of single hands")
    parser.add_argument(
        "--think", type=float, metavar="SECONDS", help="time per decision for search bots (expert: 1.0)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.add_argument("--plot", metavar="FILE.png", help="save a chart (needs matplotlib)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=cmd_tournament)
    return parser


def cmd_tournament(args: argparse.Namespace) -> int:
    """Run ``ohhell tournament``; errors in the bot list or rules exit with 2."""
    from .common import rules_from_args

    try:
        rules = rules_from_args(args)
        if args.plot:
            require_matplotlib()  # fail before the tournament, not after it
        result = run_tournament(
            [b for b in args.bots.split(",") if b.strip()],
            rules,
            args.deals,
            args.seed,
            jobs=args.jobs,
            progress=not args.quiet,
            matches=args.matches,
            think=args.think,
        )
    except (UnknownBotError, RulesError, TournamentError) as err:
        print(f"ohhell tournament: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    else:
        print(format_result(result))
    if args.plot:
        plot_result(result, args.plot)
        if not args.json:
            print(f"chart saved to {args.plot}")
    return 0
